import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * Fake translation providers for the suites, on 127.0.0.1 only: a LibreTranslate-compatible API
 * and an OpenAI-compatible chat API. Both "translate" by upper-casing (placeholders are digits
 * between brackets: they come back as they went), record every call, and can be told to be slow
 * or to fail.
 */

/** What the fakes do to a text: letters upper-cased, nothing else touched. */
export const shout = (text: string): string => text.toUpperCase();

export interface FakeProvider {
  /** The address to give TRANSLATION_PROVIDER_URL. */
  url: string;
  /** Every call, in order: the texts it carried and the rest of its body (minus the texts). */
  calls: Array<{ texts: string[]; body: Record<string, unknown>; authorization?: string }>;
  /** Calls after this many answer 500 (null: none fails). Counted from the start of `calls`. */
  failAfter: number | null;
  /** Each call waits this long before answering. */
  delayMs: number;
  /** The texts of every call, flattened. */
  texts(): string[];
  reset(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<any> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

async function startFake(path: string, handle: (body: any) => { texts: string[]; answer: (translated: string[]) => unknown }): Promise<FakeProvider> {
  const fake: FakeProvider = {
    url: '',
    calls: [],
    failAfter: null,
    delayMs: 0,
    texts: () => fake.calls.flatMap((call) => call.texts),
    reset() {
      fake.calls = [];
      fake.failAfter = null;
      fake.delayMs = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== path) return res.writeHead(404).end();
      const body = await readBody(req);
      const { texts, answer } = handle(body);
      const index = fake.calls.length;
      fake.calls.push({ texts, body, authorization: req.headers.authorization });
      if (fake.delayMs) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
      if (fake.failAfter !== null && index >= fake.failAfter) {
        // What a failing provider may say, key included: it must not reach the translation's failure.
        return res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `backend down for key ${String(body.api_key)}` }));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(texts.map(shout))));
    })().catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** LibreTranslate: POST /translate {q, source, target, format, api_key} → {translatedText}. */
export function startFakeLibreTranslate(): Promise<FakeProvider> {
  return startFake('/translate', (body) => {
    const texts: string[] = Array.isArray(body.q) ? body.q : [body.q];
    return { texts, answer: (translated) => ({ translatedText: Array.isArray(body.q) ? translated : translated[0] }) };
  });
}

/** OpenAI-compatible chat: POST /v1/chat/completions, the texts a JSON array in the user message, answered the same way. */
export function startFakeOpenAi(): Promise<FakeProvider> {
  return startFake('/v1/chat/completions', (body) => {
    const user = body.messages.find((message: any) => message.role === 'user');
    const texts: string[] = JSON.parse(user.content);
    return {
      texts,
      answer: (translated) => ({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(translated) } }],
      }),
    };
  });
}

/** The words of texts as the service counts them: placeholders are not words. */
export function wordsOf(texts: string[]): number {
  return texts
    .join(' ')
    .replace(/⟦\d+⟧/g, ' ')
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}
