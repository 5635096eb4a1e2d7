import { annotateSpan, inSpan } from '@quire/runtime';
import type { InsightsConfig } from '../kernel';

/*
 * Translation providers, chosen by TRANSLATION_PROVIDER: a LibreTranslate-compatible API
 * (POST <url>/translate, `q` an array: one call carries many texts) or an OpenAI-compatible chat
 * API (POST <url>/chat/completions: the texts as a JSON array, answered as one). Every call has
 * PROVIDER_TIMEOUT_MS; a refused call (429, 5xx, no answer) is tried twice more.
 *
 * What a provider failure says is shown to the organization (the translation's `failure`) and
 * logged: it names the provider and what went wrong, never its address (which may carry
 * credentials), its key, or what it answered (which may echo them).
 */

/** What one translation asks of a provider besides the texts. */
export interface TranslationRequest {
  /** Language codes (spec's space language enum). */
  source: string;
  target: string;
  /** The translation's instructions as plain text ('' when none). */
  instructions: string;
}

export interface TranslationProvider {
  /** For messages: 'LibreTranslate', 'OpenAI-compatible'. */
  readonly label: string;
  /** How much one call may carry. */
  readonly batch: { maxItems: number; maxChars: number };
  /** The texts translated, in order (as many as given). */
  translate(texts: readonly string[], request: TranslationRequest): Promise<string[]>;
}

/** A provider that failed: its message is safe to show and to log. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}

const ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * POSTs JSON and returns the parsed answer, retrying what may pass on a second try; in a span
 * of the provider call (its name and attempts; never the texts or the key).
 */
function postJson(label: string, url: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  return inSpan('translation provider call', { kind: 'client', attributes: { 'quire.translation.provider': label } }, () =>
    postJsonAttempts(label, url, body, headers, timeoutMs),
  );
}

async function postJsonAttempts(label: string, url: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  let failure = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    annotateSpan({ 'quire.translation.attempts': attempt });
    if (attempt > 1) await sleep(RETRY_DELAY_MS * 2 ** (attempt - 2));
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
      failure = timedOut ? `did not answer within ${timeoutMs} ms` : 'could not be reached';
      continue;
    }
    if (response.ok) {
      try {
        return await response.json();
      } catch {
        throw new ProviderError(`The translation provider (${label}) answered something that is not JSON`);
      }
    }
    await response.body?.cancel().catch(() => {});
    failure = `answered ${response.status}`;
    if (response.status !== 429 && response.status < 500) break;
  }
  throw new ProviderError(`The translation provider (${label}) ${failure}`);
}

/** LibreTranslate's codes where they differ from ours. */
const LIBRETRANSLATE_CODES: Record<string, string> = { 'pt-br': 'pb', 'zh-tw': 'zt', no: 'nb' };

function libreTranslate(config: InsightsConfig, url: string): TranslationProvider {
  const label = 'LibreTranslate';
  const endpoint = `${url.replace(/\/+$/, '')}/translate`;
  return {
    label,
    batch: { maxItems: 100, maxChars: 20_000 },
    async translate(texts, request) {
      const answer = (await postJson(
        label,
        endpoint,
        {
          q: texts,
          source: LIBRETRANSLATE_CODES[request.source] ?? request.source,
          target: LIBRETRANSLATE_CODES[request.target] ?? request.target,
          format: 'text',
          ...(config.TRANSLATION_PROVIDER_API_KEY ? { api_key: config.TRANSLATION_PROVIDER_API_KEY } : {}),
        },
        {},
        config.PROVIDER_TIMEOUT_MS,
      )) as { translatedText?: unknown };
      const translated = answer?.translatedText;
      if (!Array.isArray(translated) || translated.length !== texts.length || !translated.every((text) => typeof text === 'string')) {
        throw new ProviderError(`The translation provider (${label}) did not answer one translated text per text sent`);
      }
      return translated as string[];
    },
  };
}

/** "pt-br" → "Brazilian Portuguese": what a chat model understands best. */
function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The JSON array a chat model answered, fenced or not, bare or under one key. */
function parseChatArray(content: string): unknown {
  const unfenced = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  const parsed = JSON.parse(unfenced) as unknown;
  if (Array.isArray(parsed)) return parsed;
  if (parsed && typeof parsed === 'object') {
    const arrays = Object.values(parsed).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0];
  }
  return parsed;
}

function openAiChat(config: InsightsConfig, url: string): TranslationProvider {
  const label = 'OpenAI-compatible';
  const endpoint = `${url.replace(/\/+$/, '')}/chat/completions`;
  return {
    label,
    batch: { maxItems: 40, maxChars: 8_000 },
    async translate(texts, request) {
      const system = [
        `You translate technical documentation from ${languageName(request.source)} (${request.source}) to ${languageName(request.target)} (${request.target}).`,
        'The user sends a JSON array of texts (Markdown fragments). Answer with only a JSON array of the same length: each text translated, in the same order.',
        'Placeholders such as ⟦0⟧ stand for code, links and other parts that must not change: give each one back exactly once, unchanged.',
        'Keep Markdown punctuation (emphasis markers, list and heading markers) as it is; translate nothing else than the prose.',
        ...(request.instructions ? ['Guidance from the documentation owners:', request.instructions] : []),
      ].join('\n');
      const answer = (await postJson(
        label,
        endpoint,
        {
          model: config.TRANSLATION_PROVIDER_MODEL,
          temperature: 0,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: JSON.stringify(texts) },
          ],
        },
        config.TRANSLATION_PROVIDER_API_KEY ? { authorization: `Bearer ${config.TRANSLATION_PROVIDER_API_KEY}` } : {},
        config.PROVIDER_TIMEOUT_MS,
      )) as { choices?: Array<{ message?: { content?: unknown } }> };
      const content = answer?.choices?.[0]?.message?.content;
      let translated: unknown;
      try {
        translated = typeof content === 'string' ? parseChatArray(content) : undefined;
      } catch {
        translated = undefined;
      }
      if (!Array.isArray(translated) || translated.length !== texts.length || !translated.every((text) => typeof text === 'string')) {
        throw new ProviderError(`The translation provider (${label}) did not answer a JSON array of one translated text per text sent`);
      }
      return translated as string[];
    },
  };
}

/** The provider the settings name; throws ProviderError (saying what to set) when there is none. */
export function translationProviderOf(config: InsightsConfig): TranslationProvider {
  if (config.TRANSLATION_PROVIDER === 'none') {
    throw new ProviderError(
      'No translation provider is configured: the service needs TRANSLATION_PROVIDER (libretranslate or openai) and TRANSLATION_PROVIDER_URL',
    );
  }
  const url = config.TRANSLATION_PROVIDER_URL;
  if (!url) throw new ProviderError(`The translation provider (${config.TRANSLATION_PROVIDER}) has no address: the service needs TRANSLATION_PROVIDER_URL`);
  return config.TRANSLATION_PROVIDER === 'libretranslate' ? libreTranslate(config, url) : openAiChat(config, url);
}
