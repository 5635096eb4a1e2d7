import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { apiClient, successBody, type ApiClient, type TestStack } from '@quire/testkit';
import { quantile } from './bench-stats';

/*
 * `npm run bench -- translations`: a translation run, from POST …/run to the translation
 * completed, on a space of PAGES pages — a first run (the target space made, every page
 * translated) and incremental runs after one page changed.
 *
 * The provider is a LibreTranslate-compatible fake in this process, on 127.0.0.1 at a free port:
 * `startBenchTranslationProvider()` starts it before the stack, which must run with its `env`
 * (TRANSLATION_PROVIDER=libretranslate, TRANSLATION_PROVIDER_URL=http://127.0.0.1:<port>). It
 * answers each call after PROVIDER_LATENCY_MS, as a real provider would take some time.
 *
 * The floor, measured in the same run: the very calls the run made (their recorded bodies), made
 * directly to the fake, as many at a time as the service makes them. The ratio is Quire's own
 * work: reading the source, segmenting, the queue, creating and writing the target, the status.
 */

const PAGES = 100;
/** First runs measured (one translation per language, each made afresh). */
const FIRST_RUNS = 3;
const INCREMENTAL_RUNS = 5;
const PROVIDER_LATENCY_MS = 50;
/** Provider calls the service makes at once (translator.ts). */
const CONCURRENT_CALLS = 4;
const RUN_TIMEOUT_MS = 300_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface BenchTranslationProvider {
  /** What the stack needs to translate through this provider. */
  env: { TRANSLATION_PROVIDER: string; TRANSLATION_PROVIDER_URL: string };
  /** The bodies of the calls it got, in order. */
  bodies: string[];
  close(): Promise<void>;
}

/** The bench's stand-in provider, listening on a free port of 127.0.0.1. */
export async function startBenchTranslationProvider(): Promise<BenchTranslationProvider> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      setTimeout(() => {
        try {
          const { q } = JSON.parse(body) as { q: string[] };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ translatedText: q.map((text) => text.toUpperCase()) }));
        } catch {
          res.writeHead(400).end();
        }
      }, PROVIDER_LATENCY_MS);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  return {
    env: { TRANSLATION_PROVIDER: 'libretranslate', TRANSLATION_PROVIDER_URL: `http://127.0.0.1:${port}` },
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A documentation page of the usual kind: prose, a list, a table, code, links. */
function pageMarkdown(n: number, revision = 0): string {
  return [
    `This page describes feature ${n} of the product, revision ${revision}, and how teams use it every day.`,
    '',
    `To enable it, open the settings and turn on **feature ${n}**; the change applies to every member at once.`,
    '',
    '```bash',
    `quire feature enable ${n} --all-members`,
    '```',
    '',
    `- It works with \`quire sync\` and with the [API reference](https://example.com/api/${n}).`,
    '- It keeps an audit trail of who changed what, and when.',
    '- It can be turned off again at any time.',
    '',
    '| Setting | Meaning |',
    '|---|---|',
    `| limit | How many items feature ${n} handles per minute |`,
    '',
    `Read the {{ space.title }} guide for more, or write to the support team about feature ${n}.`,
  ].join('\n');
}

async function mergeChanges(api: ApiClient, spaceId: string, changes: unknown[]): Promise<void> {
  const cr = successBody(await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Bench' }), 'open a change request');
  for (let i = 0; i < changes.length; i += 50) {
    successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`, { changes: changes.slice(i, i + 50) }), 'write pages');
  }
  successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`), 'merge');
}

/** POST …/run, then the translation until its run is over: the elapsed milliseconds. */
async function timedRun(api: ApiClient, url: string, runs: number): Promise<number> {
  const started = performance.now();
  successBody(await api.post(`${url}/run`), 'run the translation');
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  for (;;) {
    const translation = successBody(await api.get(url), 'read the translation');
    if (translation.stats.runs >= runs && (translation.status === 'completed' || translation.status === 'failed')) {
      if (translation.status === 'failed') throw new Error(`the run failed: ${translation.failure?.reason}`);
      return performance.now() - started;
    }
    if (Date.now() > deadline) throw new Error(`the run did not end within ${RUN_TIMEOUT_MS} ms`);
    await sleep(10);
  }
}

/** The floor: the recorded calls made again directly, CONCURRENT_CALLS at a time. */
async function replay(providerUrl: string, bodies: readonly string[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENT_CALLS, bodies.length) }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const answer = await fetch(`${providerUrl}/translate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        if (!answer.ok) throw new Error(`the provider answered ${answer.status}`);
        await answer.json();
      }
    }),
  );
  return performance.now() - started;
}

interface Sample {
  quire: number;
  floor: number;
  calls: number;
  texts: number;
}

/** The runs, on `stack` started with `provider.env`. */
export async function benchTranslations(stack: TestStack, provider: BenchTranslationProvider): Promise<void> {
  const owner = await stack.cli(['bootstrap', '--email', `bench-translations-${Date.now()}@bench.test`, '--org', 'Bench translations', '--json']);
  const api = apiClient(stack.baseUrl, owner.token);
  const space = successBody(await api.post(`/v1/orgs/${owner.organizationId}/spaces`, { title: 'Bench translations' }), 'create the space').id as string;
  await mergeChanges(
    api,
    space,
    Array.from({ length: PAGES }, (_, n) => ({
      type: 'insert_page',
      title: `Feature ${n} guide`,
      slug: `feature-${n}`,
      description: `All about feature ${n}`,
      markdown: pageMarkdown(n),
    })),
  );
  const pages = successBody(await api.get(`/v1/spaces/${space}/content`), 'read the space').pages as Array<{ id: string }>;

  const measure = async (url: string, runs: number): Promise<Sample> => {
    const recorded = provider.bodies.length;
    const quire = await timedRun(api, url, runs);
    const bodies = provider.bodies.slice(recorded);
    const texts = bodies.reduce((sum, body) => sum + (JSON.parse(body) as { q: string[] }).q.length, 0);
    const floor = await replay(provider.env.TRANSLATION_PROVIDER_URL, bodies);
    provider.bodies.length = recorded;
    return { quire, floor, calls: bodies.length, texts };
  };

  const firsts: Sample[] = [];
  const languages = ['fr', 'de', 'es', 'it', 'nl'].slice(0, FIRST_RUNS);
  let url = '';
  for (const language of languages) {
    const translation = successBody(
      await api.post(`/v1/orgs/${owner.organizationId}/translations`, { source: { space, language: 'en' }, language }),
      'create a translation',
    );
    url = `/v1/orgs/${owner.organizationId}/translations/${translation.id}`;
    firsts.push(await measure(url, 1));
  }
  const incrementals: Sample[] = [];
  for (let i = 0; i < INCREMENTAL_RUNS; i++) {
    const page = pages[(i * 37) % pages.length];
    await mergeChanges(api, space, [{ type: 'update_page', page: page.id, markdown: pageMarkdown(i, i + 1) }]);
    incrementals.push(await measure(url, 2 + i));
  }

  const row = (label: string, samples: Sample[]) => {
    const quire = quantile(
      samples.map((s) => s.quire),
      0.5,
    );
    const floor = quantile(
      samples.map((s) => s.floor),
      0.5,
    );
    const { calls, texts } = samples[0];
    console.log(
      `${label.padEnd(58)} ${quire.toFixed(1).padStart(9)} ms   floor ${floor.toFixed(1).padStart(8)} ms   ×${(quire / floor).toFixed(1)}   (${calls} calls, ${texts} texts)`,
    );
  };
  console.log(
    `translation runs: POST run → completed, provider answering in ${PROVIDER_LATENCY_MS} ms (floor: the same provider calls made directly, ${CONCURRENT_CALLS} at a time; ×: Quire / floor; p50)`,
  );
  row(`first run, ${PAGES} pages (n=${firsts.length})`, firsts);
  row(`incremental run, 1 page changed (n=${incrementals.length})`, incrementals);
}
