import { z } from 'zod';
import type { InsightsConfig } from '../kernel';
import { clip, MAX_SUMMARY_LENGTH, MAX_TITLE_LENGTH, MAX_ISSUES_PER_CONVERSATION, type ConversationText } from './extract';
import { MAX_CLUSTER_SUMMARY_LENGTH, MAX_LABEL_LENGTH } from './labels';

/*
 * The optional provider: an OpenAI-compatible API (INSIGHTS_LLM_URL, up to `/v1`) whose chat
 * model extracts issues and words cluster labels and summaries, and whose embeddings model
 * (INSIGHTS_EMBEDDINGS_MODEL) gives vectors to cluster by. Every call is bounded by
 * PROVIDER_TIMEOUT_MS and its answer checked; any failure is a ProviderError, upon which the
 * caller falls back to the default pipeline. Messages never carry the API key.
 */

export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}

type ProviderConfig = Pick<
  InsightsConfig,
  'INSIGHTS_LLM_URL' | 'INSIGHTS_LLM_API_KEY' | 'INSIGHTS_LLM_MODEL' | 'INSIGHTS_EMBEDDINGS_MODEL' | 'PROVIDER_TIMEOUT_MS'
>;

/** Whether a provider is configured. */
export function hasProvider(config: ProviderConfig): boolean {
  return !!config.INSIGHTS_LLM_URL;
}

/** Whether the provider also gives embeddings. */
export function hasEmbeddings(config: ProviderConfig): boolean {
  return hasProvider(config) && !!config.INSIGHTS_EMBEDDINGS_MODEL;
}

/** Most of a conversation sent to the provider (characters). */
const MAX_PROMPT_CHARS = 12_000;

async function post(config: ProviderConfig, path: string, body: unknown): Promise<unknown> {
  const url = `${config.INSIGHTS_LLM_URL!.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.INSIGHTS_LLM_API_KEY ? { authorization: `Bearer ${config.INSIGHTS_LLM_API_KEY}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(config.PROVIDER_TIMEOUT_MS),
    });
  } catch (error) {
    throw new ProviderError(`provider ${path} unreachable: ${(error as Error).name === 'TimeoutError' ? 'timed out' : (error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new ProviderError(`provider ${path} answered ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new ProviderError(`provider ${path} answered something else than JSON`);
  }
}

const chatAnswer = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1) });

/** Asks the chat model for a JSON object and checks it against `schema`. */
async function chatJson<S extends z.ZodType>(config: ProviderConfig, system: string, user: string, schema: S): Promise<z.output<S>> {
  const answer = chatAnswer.safeParse(
    await post(config, '/chat/completions', {
      model: config.INSIGHTS_LLM_MODEL,
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    }),
  );
  if (!answer.success) throw new ProviderError('provider chat answer has no message');
  let content: unknown;
  try {
    content = JSON.parse(answer.data.choices[0].message.content.replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new ProviderError('provider chat answer is not JSON');
  }
  const parsed = schema.safeParse(content);
  if (!parsed.success) throw new ProviderError('provider chat answer does not have the expected shape');
  return parsed.data;
}

const issuesAnswer = z.object({
  issues: z.array(z.object({ title: z.string().trim().min(1), summary: z.string().trim().min(1) })).max(20),
});

/** The conversation as the prompt shows it: subject, then each message with its author's role. */
function transcript(conversation: ConversationText): string {
  const lines = [conversation.subject ? `Subject: ${conversation.subject}` : '', ...conversation.parts.map((part) => `[${part.role}] ${part.body}`)];
  return lines.filter(Boolean).join('\n\n').slice(0, MAX_PROMPT_CHARS);
}

/** The issues the chat model finds in the conversation (titles and summaries within our limits). */
export async function providerIssues(config: ProviderConfig, conversation: ConversationText): Promise<Array<{ title: string; summary: string }>> {
  const answer = await chatJson(
    config,
    'You read support and chat conversations between users of a documentation platform and its team. ' +
      'List the distinct problems or unanswered questions the user raised (not the team). ' +
      'Answer with JSON: {"issues": [{"title": "<short title, at most 12 words>", "summary": "<one or two sentences, only facts stated in the conversation>"}]}. ' +
      'Answer {"issues": []} when the user raised nothing.',
    transcript(conversation),
    issuesAnswer,
  );
  return answer.issues
    .slice(0, MAX_ISSUES_PER_CONVERSATION)
    .map((issue) => ({ title: clip(issue.title, MAX_TITLE_LENGTH), summary: clip(issue.summary, MAX_SUMMARY_LENGTH) }));
}

const describeAnswer = z.object({
  label: z.string().trim().min(1),
  icon: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9-]{1,50}$/),
  summary: z.string().trim().min(1),
});

/** A label, an icon name and a summary for a cluster, from its issues' titles and terms. */
export async function providerDescription(
  config: ProviderConfig,
  input: { titles: readonly string[]; terms: readonly string[] },
): Promise<{ label: string; icon: string; summary: string }> {
  const answer = await chatJson(
    config,
    'You name groups of similar support issues. ' +
      'Answer with JSON: {"label": "<a short name of the common problem, at most 8 words>", "icon": "<a Font Awesome icon name such as gear, lock, credit-card, bug>", "summary": "<two sentences describing the common problem>"}.',
    `Issue titles:\n${input.titles.map((title) => `- ${title}`).join('\n')}\n\nFrequent terms: ${input.terms.join(', ')}`,
    describeAnswer,
  );
  return { label: clip(answer.label, MAX_LABEL_LENGTH), icon: answer.icon, summary: clip(answer.summary, MAX_CLUSTER_SUMMARY_LENGTH) };
}

const embeddingsAnswer = z.object({
  data: z.array(z.object({ index: z.number().int().min(0).optional(), embedding: z.array(z.number()).min(1).max(20_000) })),
});

/** One embedding per text, in order (all of the same length). */
export async function providerEmbeddings(config: ProviderConfig, texts: readonly string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  const answer = embeddingsAnswer.safeParse(await post(config, '/embeddings', { model: config.INSIGHTS_EMBEDDINGS_MODEL, input: [...texts] }));
  if (!answer.success || answer.data.data.length !== texts.length) throw new ProviderError('provider embeddings answer does not have the expected shape');
  const ordered = [...answer.data.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((item) => item.embedding);
  if (ordered.some((vector) => vector.length !== ordered[0].length)) throw new ProviderError('provider embeddings differ in length');
  return ordered;
}
