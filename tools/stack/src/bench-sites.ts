import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { seededRandom } from '@quire/runtime';
import { apiClient, successBody, type ApiClient, type TestStack } from '@quire/testkit';
import { startFloor } from './bench-request-path';
import { cpuShares, quantile, summary } from './bench-stats';

/*
 * `npm run bench -- sites`: a published documentation site of 1,000 pages, read through the
 * gateway as its visitors read it.
 *
 * One space of 1,000 pages — 20 top-level pages, each with 7 children of 6 children each — of a
 * few hundred words of varied markdown (headings, lists, code, tables, quotes, and links
 * /pages/<id> to other pages), written over HTTP in change request batches of 50 (one
 * top-level page's subtree each) and merged; a site showing it, published. Then, with the same
 * load generator (autocannon) throughout:
 *
 *   - the first GET of all (it also loads the site and the space's content), then cold renders:
 *     one GET of each of COLD distinct pages nobody read before, one at a time; the same pages
 *     again in the same order (cached, unless the rendered pages do not all fit in memory);
 *   - cached pages: CACHED of those pages, already rendered, one at a time, then requested by
 *     CONNECTIONS clients at once;
 *   - conditional GETs: the same with each page's ETag in If-None-Match (304s);
 *   - the floor, started in the same run and loaded the same way: express + http-proxy-middleware
 *     in front of an express app answering a static page of the average size (bench-floor.js
 *     backend with FLOOR_HTML_FILE), and its 304; Quire's runs and the floor's alternate
 *     (PAIRS of each), so that the machine's slower moments weigh on both;
 *   - a merge editing one page: the time from the merge's answer to the first GET showing the
 *     edit, and the first GET after it of a page rendered before it.
 */

const TOP = 20;
const CHILDREN = 7;
const GRANDCHILDREN = 6;
/** One top-level page and its subtree: 1 + 7 + 7 × 6 = 50 pages, one request. */
const SUBTREE = 1 + CHILDREN * (1 + GRANDCHILDREN);
const PAGES = TOP * SUBTREE;
const COLD = 200;
const CACHED = 50;
const CONNECTIONS = 16;
const WARMUP_SECONDS = 2;
/** Quire's and the floor's loads alternate, PAIRS runs of SECONDS / PAIRS each: a slower minute of the machine weighs on both alike. */
const SECONDS = 12;
const PAIRS = 3;

const WORDS = (
  'the a to of and in is for you with on this that be it can your are as by from an or when use if not will each ' +
  'installation configuration authentication deployment container image registry cluster service endpoint webhook ' +
  'token session account organization member team role permission policy audit log metric alert dashboard latency ' +
  'cache database migration schema index query transaction replica backup snapshot storage upload file archive ' +
  'repository branch commit merge review release version upgrade rollback pipeline build environment variable secret ' +
  'certificate network proxy gateway domain redirect request response header payload timeout retry queue worker ' +
  'event stream notification template theme layout navigation search analytics billing plan quota limit cursor ' +
  'filter language translation editor markdown preview publish visibility space page section heading table widget'
).split(' ');
const TERMS = WORDS.filter((word) => word.length > 5);
const LANGUAGES = ['bash', 'json', 'yaml', 'typescript'] as const;

interface Generator {
  next: () => number;
  between: (low: number, high: number) => number;
  pick: <T>(list: readonly T[]) => T;
}

function generator(seed: number): Generator {
  const next = seededRandom(seed);
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  return { next, between, pick: (list) => list[Math.floor(next() * list.length)] };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const words = (g: Generator, low: number, high: number, list = WORDS) => Array.from({ length: g.between(low, high) }, () => g.pick(list)).join(' ');
const title = (g: Generator) => capitalized(words(g, 2, 4, TERMS));

/** A sentence, sometimes with inline code, emphasis or a link to another page (its index, resolved to an id later). */
function sentence(g: Generator, link: () => number): string {
  const parts = [capitalized(words(g, 4, 10))];
  const extra = g.next();
  if (extra < 0.2) parts.push(`[${words(g, 1, 3, TERMS)}](/pages/§${link()})`);
  else if (extra < 0.35) parts.push(`\`${g.pick(TERMS)}.${g.pick(TERMS)}\``);
  else if (extra < 0.45) parts.push(`**${g.pick(TERMS)}**`);
  parts.push(words(g, 2, 8));
  return `${parts.join(' ')}.`;
}

const paragraph = (g: Generator, link: () => number) => Array.from({ length: g.between(2, 5) }, () => sentence(g, link)).join(' ');

function codeBlock(g: Generator): string {
  const language = g.pick(LANGUAGES);
  const [a, b, c] = [g.pick(TERMS), g.pick(TERMS), g.pick(TERMS)];
  const code = {
    bash: `quire ${a} ${b} --${c} ${g.between(1, 64)}\nquire ${a} list --limit ${g.between(10, 100)}`,
    json: `{\n  "${a}": "${b}",\n  "${c}": ${g.between(1, 1000)},\n  "enabled": true\n}`,
    yaml: `${a}:\n  ${b}: ${g.between(1, 100)}\n  ${c}:\n    - ${g.pick(TERMS)}\n    - ${g.pick(TERMS)}`,
    typescript: `const ${a} = await client.${b}({ ${c}: ${g.between(1, 50)} });\nconsole.log(${a}.${g.pick(TERMS)});`,
  }[language];
  return `\`\`\`${language}\n${code}\n\`\`\``;
}

function table(g: Generator): string {
  const rows = Array.from({ length: g.between(2, 4) }, () => `| \`${g.pick(TERMS)}\` | ${words(g, 3, 7)} | ${g.between(1, 500)} |`);
  return ['| Name | Description | Default |', '|---|---|---|', ...rows].join('\n');
}

/** A page body of roughly 200–500 words: an introduction, 3–5 sections with sub-sections, lists, code, tables, quotes. */
function markdownBody(g: Generator, link: () => number): string {
  const blocks = [paragraph(g, link)];
  for (let s = g.between(3, 5); s > 0; s--) {
    blocks.push(`## ${title(g)}`, paragraph(g, link));
    const extra = g.next();
    if (extra < 0.25) blocks.push(Array.from({ length: g.between(2, 5) }, () => `- ${sentence(g, link)}`).join('\n'));
    else if (extra < 0.4) blocks.push(Array.from({ length: g.between(2, 4) }, (_, i) => `${i + 1}. ${sentence(g, link)}`).join('\n'));
    else if (extra < 0.6) blocks.push(codeBlock(g));
    else if (extra < 0.7) blocks.push(table(g));
    else if (extra < 0.8) blocks.push(`> **Note:** ${sentence(g, link)}`);
    if (g.next() < 0.4) blocks.push(`### ${title(g)}`, paragraph(g, link));
  }
  return blocks.join('\n\n');
}

interface SitePage {
  index: number;
  id: string;
  /** The page's path in the space (its address below the site's root). */
  path: string;
  markdown: string;
}

/** The pages in pre-order with their parents' indexes: each top-level page is followed by its subtree. */
function outline(g: Generator): Array<{ index: number; parent: number | null; title: string; slug: string }> {
  const pages: Array<{ index: number; parent: number | null; title: string; slug: string }> = [];
  const add = (parent: number | null, n: number) => {
    const pageTitle = title(g);
    const index = pages.length;
    pages.push({ index, parent, title: pageTitle, slug: `${pageTitle.toLowerCase().replace(/\s+/g, '-')}-${n}` });
    return index;
  };
  for (let t = 0; t < TOP; t++) {
    const top = add(null, t + 1);
    for (let c = 0; c < CHILDREN; c++) {
      const child = add(top, c + 1);
      for (let gc = 0; gc < GRANDCHILDREN; gc++) add(child, gc + 1);
    }
  }
  return pages;
}

const resolveLinks = (markdown: string, ids: string[]) => markdown.replace(/\/pages\/§(\d+)/g, (_, index: string) => `/pages/${ids[Number(index)]}`);

/**
 * The space, written in one change request: the first subtree without bodies (its links would
 * point at pages not written yet), the others with bodies linking to pages written before them,
 * then the first subtree's bodies (linking anywhere), and the merge.
 */
async function buildSpace(api: ApiClient, organizationId: string, g: Generator): Promise<{ spaceId: string; pages: SitePage[] }> {
  const spaceId = successBody(await api.post(`/v1/orgs/${organizationId}/spaces`, { title: 'Handbook' }), 'create space').id as string;
  const cr = successBody(await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: `${PAGES} pages` }), 'create change request').id as string;
  const tree = outline(g);
  const ids: string[] = [];
  const paths: string[] = [];
  const bodies: string[] = [];
  for (let start = 0; start < PAGES; start += SUBTREE) {
    const batch = tree.slice(start, start + SUBTREE);
    const changes = batch.map((page) => {
      // Links to pages already written; the first subtree's may go anywhere but itself.
      const link = () => (start === 0 ? (page.index + 1 + Math.floor(g.next() * (PAGES - 1))) % PAGES : Math.floor(g.next() * start));
      bodies[page.index] = markdownBody(g, link);
      paths[page.index] = page.parent === null ? page.slug : `${paths[page.parent]}/${page.slug}`;
      return {
        type: 'insert_page',
        ref: `p${page.index}`,
        ...(page.parent === null ? {} : { into: `p${page.parent}` }),
        title: page.title,
        slug: page.slug,
        ...(g.next() < 0.5 ? { description: `${capitalized(words(g, 6, 14))}.` } : {}),
        ...(start === 0 ? {} : { markdown: resolveLinks(bodies[page.index], ids) }),
      };
    });
    const written = successBody(
      await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content?compat=false`, { changes }),
      `insert pages ${start}–${start + SUBTREE - 1}`,
    );
    for (const change of written.changes as Array<{ ref?: string; page: { id: string } }>) if (change.ref) ids[Number(change.ref.slice(1))] = change.page.id;
    if (batch.some((page) => !ids[page.index])) throw new Error(`pages ${start}–${start + SUBTREE - 1}: not every insert answered its id`);
  }
  const first = tree.slice(0, SUBTREE).map((page) => ({ type: 'update_page', page: ids[page.index], markdown: resolveLinks(bodies[page.index], ids) }));
  successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content`, { changes: first }), 'write the first subtree’s bodies');
  successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`), 'merge');
  return {
    spaceId,
    pages: tree.map((page) => ({ index: page.index, id: ids[page.index], path: paths[page.index], markdown: resolveLinks(bodies[page.index], ids) })),
  };
}

// ---- the load generator -----------------------------------------------------------------------

interface Run {
  rps: number;
  p50: number;
  p95: number;
  /** Response times in order of completion (ms). */
  samples: number[];
}

type Cannon = autocannon.Instance & PromiseLike<autocannon.Result>;

/**
 * autocannon against `origin`, cycling through `requests`; every answer must have `status`.
 * Latencies are taken from each response (autocannon's own histogram has no p95).
 */
async function cannon(
  origin: string,
  requests: autocannon.Request[],
  status: number,
  options: { connections: number; duration?: number; amount?: number },
): Promise<Run> {
  const instance = autocannon({
    url: origin,
    requests,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration }),
    timeout: 60,
  }) as unknown as Cannon;
  const samples: number[] = [];
  instance.on('response', (_client: autocannon.Client, _status: number, _bytes: number, responseTime: number) => {
    samples.push(responseTime);
  });
  const result = await instance;
  const answered = result.statusCodeStats as unknown as Record<string, { count: number } | undefined>;
  const wanted = answered[String(status)]?.count ?? 0;
  if (wanted !== result.requests.total || result.errors || result.timeouts)
    throw new Error(
      `${origin}${requests[0].path}…: ${result.requests.total - wanted} of ${result.requests.total} requests not answered ${status} (${JSON.stringify(answered)}, errors ${result.errors}, timeouts ${result.timeouts})`,
    );
  return {
    rps: result.requests.total / (result.duration || 1),
    p50: quantile(samples, 0.5),
    p95: quantile(samples, 0.95),
    samples,
  };
}

interface Load {
  origin: string;
  requests: autocannon.Request[];
}

/**
 * CONNECTIONS clients cycling through each load's requests: a warm-up of each, then PAIRS runs
 * of each in turn, each load's answers counted together (its rate over all its runs, the
 * latencies of all its answers). `meter` is started before Quire's first run and read after it.
 */
async function alternate(quire: Load, floor: Load, status: number, meter: () => () => string): Promise<{ quire: Run; floor: Run; cpu: string }> {
  const run = ({ origin, requests }: Load, duration: number) => cannon(origin, requests, status, { connections: CONNECTIONS, duration });
  await run(floor, WARMUP_SECONDS);
  await run(quire, WARMUP_SECONDS);
  const runs: { quire: Run[]; floor: Run[] } = { quire: [], floor: [] };
  let cpu = '';
  for (let pair = 0; pair < PAIRS; pair++) {
    runs.floor.push(await run(floor, SECONDS / PAIRS));
    const read = pair === 0 ? meter() : undefined;
    runs.quire.push(await run(quire, SECONDS / PAIRS));
    if (read) cpu = read();
  }
  const together = (list: Run[]): Run => {
    const samples = list.flatMap((one) => one.samples);
    return { rps: list.reduce((sum, one) => sum + one.rps, 0) / list.length, p50: quantile(samples, 0.5), p95: quantile(samples, 0.95), samples };
  };
  return { quire: together(runs.quire), floor: together(runs.floor), cpu };
}

// ---- CPU per process --------------------------------------------------------------------------

/** Starts counting; the returned function gives each process's share of one core since, busiest first, on one line. */
function cpuMeter(postgresDatabase: string | undefined): () => string {
  const measure = cpuShares(postgresDatabase);
  return () =>
    measure()
      .shares.filter(([, share]) => share >= 0.01)
      .map(([label, share]) => `${label} ${(share * 100).toFixed(0)} %`)
      .join(' · ');
}

// ---- the section ------------------------------------------------------------------------------

async function startHtmlFloor(html: string): Promise<{ origin: string; stop(): void }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-bench-sites-'));
  const file = path.join(dir, 'page.html');
  writeFileSync(file, html);
  const floor = await startFloor({ FLOOR_HTML_FILE: file });
  return {
    origin: floor.url,
    stop() {
      floor.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function fetchPage(url: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string; text: string }> {
  const response = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(60_000) });
  return { status: response.status, etag: response.headers.get('etag') ?? '', text: await response.text() };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const perSecond = (value: number) => `${Math.round(value).toLocaleString('en')} req/s`;

export async function benchSites(
  stack: Pick<TestStack, 'baseUrl' | 'cli' | 'env'>,
  options: { log?: (line: string) => void } = {},
): Promise<Record<string, number>> {
  const log = options.log ?? ((line: string) => console.log(line));
  const line = (label: string, value: string) => log(`${label.padEnd(66)} ${value}`);
  const results: Record<string, number> = {};
  const owner = await stack.cli(['bootstrap', '--email', `bench-sites-${Date.now()}@bench.test`, '--org', 'Bench sites', '--json']);
  const api = apiClient(stack.baseUrl, owner.token);
  const g = generator(7);

  let started = performance.now();
  const { spaceId, pages } = await buildSpace(api, owner.organizationId, g);
  line(
    `write a ${PAGES.toLocaleString('en')}-page space (${PAGES / SUBTREE + 1} batches of 50 + merge)`,
    `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  started = performance.now();
  const sites = `/v1/orgs/${owner.organizationId}/sites`;
  const site = successBody(await api.post(sites, { title: 'Handbook', spaces: [spaceId] }), 'create site');
  const published = successBody(await api.post(`${sites}/${site.id}/publish`), 'publish site');
  line('create and publish a site showing it', ms(performance.now() - started));

  const origin = stack.baseUrl;
  const base = new URL(published.urls.published as string).pathname;
  const pathOf = (page: SitePage) => `${base}${page.path}`;
  // As browsers ask: gzip accepted (Quire and the floor both answer it, compressed once and kept).
  const get = (page: SitePage, headers: Record<string, string> = {}): autocannon.Request => ({
    method: 'GET',
    path: pathOf(page),
    headers: { 'accept-encoding': 'gzip', ...headers },
  });
  const gets = (list: SitePage[]) => list.map((page) => get(page));

  // The site's first page (its root) first: it loads the structure and the space's content.
  // Then COLD other pages, spread over the tree, none of them read before.
  const cold = Array.from({ length: COLD }, (_, i) => pages[1 + Math.floor((i * (PAGES - 1)) / COLD)]);
  const firstRun = await cannon(origin, [{ method: 'GET', path: base, headers: { 'accept-encoding': 'gzip' } }, ...gets(cold)], 200, {
    connections: 1,
    amount: COLD + 1,
  });
  const [first, ...renders] = firstRun.samples;
  results['first GET of the site'] = first;
  results['cold render p50'] = quantile(renders, 0.5);
  results['cold render p95'] = quantile(renders, 0.95);
  line('first GET of all (loads the site and the space’s content, renders)', ms(first));
  line(`cold page render: first GET of ${COLD} distinct pages, one at a time`, summary(renders));
  // The same pages again, in the same order: answered from the rendered pages unless those did not all fit.
  const again = (await cannon(origin, gets(cold), 200, { connections: 1, amount: COLD })).samples;
  results['second GET p50'] = quantile(again, 0.5);
  line(`the same ${COLD} pages again, in the same order`, summary(again));

  // The cached set: pages rendered above, with their ETags; the floor serves a page of their average size.
  const cached = cold.filter((_, i) => i % (COLD / CACHED) === 0);
  const answers = await Promise.all(cached.map((page) => fetchPage(`${origin}${pathOf(page)}`)));
  for (const [i, answer] of answers.entries())
    if (answer.status !== 200 || !answer.etag) throw new Error(`${pathOf(cached[i])}: ${answer.status}, ETag ${answer.etag || 'none'}`);
  const sizes = answers.map((answer) => Buffer.byteLength(answer.text));
  const average = sizes.reduce((sum, size) => sum + size, 0) / sizes.length;
  const typical = answers.reduce((best, answer) =>
    Math.abs(Buffer.byteLength(answer.text) - average) < Math.abs(Buffer.byteLength(best.text) - average) ? answer : best,
  );
  const nav = /<nav\b[^>]*aria-label="Pages"[^>]*>[\s\S]*?<\/nav>/.exec(typical.text)?.[0];
  const links = typical.text.split(`href="${base}`).length - 1;
  results['page size (bytes)'] = average;
  line(
    'page size (HTML): average of the cached set',
    `${(average / 1024).toFixed(1)} KB${nav ? ` (navigation ${(Buffer.byteLength(nav) / 1024).toFixed(1)} KB)` : ''}, ${(gzipSync(typical.text).length / 1024).toFixed(1)} KB gzipped, ${links.toLocaleString('en')} links to the site`,
  );

  const oneByOne = (await cannon(origin, gets(cached), 200, { connections: 1, amount: 4 * CACHED })).samples;
  results['cached page, one at a time, p50'] = quantile(oneByOne, 0.5);
  line(`cached page, one at a time (${CACHED} pages, 4 rounds)`, summary(oneByOne));

  const postgresDatabase = stack.env.ferretdbPostgresUrl ? new URL(stack.env.ferretdbPostgresUrl).pathname.slice(1) : undefined;
  const meter = () => cpuMeter(postgresDatabase);
  const floor = await startHtmlFloor(typical.text);
  let cachedRuns: Awaited<ReturnType<typeof alternate>>;
  let conditionalRuns: Awaited<ReturnType<typeof alternate>>;
  try {
    const floorEtag = (await fetchPage(`${floor.origin}${pathOf(cached[0])}`)).etag;
    cachedRuns = await alternate({ origin, requests: gets(cached) }, { origin: floor.origin, requests: gets(cached) }, 200, meter);
    conditionalRuns = await alternate(
      { origin, requests: cached.map((page, i) => get(page, { 'if-none-match': answers[i].etag })) },
      { origin: floor.origin, requests: cached.map((page) => get(page, { 'if-none-match': floorEtag })) },
      304,
      meter,
    );
  } finally {
    floor.stop();
  }

  const row = (label: string, run: Run) => `${label} ${perSecond(run.rps).padStart(12)} · p50 ${ms(run.p50).padStart(8)} · p95 ${ms(run.p95).padStart(8)}`;
  const compare = (what: string, quire: Run, floorRun: Run, cpu: string) => {
    results[`${what} req/s`] = quire.rps;
    results[`${what} p50`] = quire.p50;
    results[`${what} p95`] = quire.p95;
    results[`${what} req/s (floor)`] = floorRun.rps;
    results[`${what} p50 (floor)`] = floorRun.p50;
    results[`${what} p95 (floor)`] = floorRun.p95;
    line(`${what}: ${CACHED} pages, ${CONNECTIONS} connections, ${PAIRS} × ${SECONDS / PAIRS} s each`, row('Quire', quire));
    line('', row('floor', floorRun));
    line('', `Quire/floor: p50 ×${(quire.p50 / floorRun.p50).toFixed(2)} · req/s ×${(quire.rps / floorRun.rps).toFixed(2)}`);
    line('', `CPU during Quire's first run (share of one core): ${cpu}`);
  };
  compare('cached page (200)', cachedRuns.quire, cachedRuns.floor, cachedRuns.cpu);
  compare('conditional GET (304)', conditionalRuns.quire, conditionalRuns.floor, conditionalRuns.cpu);

  await benchEdit(api, spaceId, origin, pathOf, cached, results, line);
  return results;
}

/**
 * One page edited in a change request and merged: the time from the merge's answer to the first
 * GET showing the edit (it loads the new revision's content and renders the page), how many GETs
 * that took, and the first GET after it of another page rendered before the merge.
 */
async function benchEdit(
  api: ApiClient,
  spaceId: string,
  origin: string,
  pathOf: (page: SitePage) => string,
  cached: SitePage[],
  results: Record<string, number>,
  line: (label: string, value: string) => void,
): Promise<void> {
  const [edited, other] = cached;
  const marker = 'quokkaplatypus';
  const cr = successBody(await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Edit one page' }), 'create change request').id as string;
  successBody(
    await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ type: 'update_page', page: edited.id, markdown: `${edited.markdown}\n\n## Wildlife\n\nA ${marker} lives here.` }],
    }),
    'edit one page',
  );
  const before = await fetchPage(`${origin}${pathOf(other)}`);
  const started = performance.now();
  successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`), 'merge');
  const merged = performance.now();
  let requests = 0;
  let shown = false;
  while (!shown && performance.now() - merged < 30_000) {
    requests++;
    const answer = await fetchPage(`${origin}${pathOf(edited)}`);
    if (answer.status !== 200) throw new Error(`GET of the edited page after the merge: ${answer.status}`);
    shown = answer.text.includes(marker);
  }
  const seen = performance.now();
  if (!shown) throw new Error(`the edit was not shown within 30 s of the merge (${requests} GETs)`);
  const revisit = await fetchPage(`${origin}${pathOf(other)}`, { 'if-none-match': before.etag });
  const rerendered = performance.now() - seen;
  if (revisit.status !== 200) throw new Error(`a page revisited after the merge answered ${revisit.status}, not 200 (its navigation may have changed)`);
  results['merge editing 1 page'] = merged - started;
  results['merge → first GET showing the edit'] = seen - merged;
  results['GETs until the edit showed'] = requests;
  results['first GET after the merge of another page'] = rerendered;
  line('merge editing 1 page of the space (response time)', ms(merged - started));
  line('merge’s answer → first GET showing the edit', `${ms(seen - merged)} (${requests} GET${requests === 1 ? '' : 's'})`);
  line('  then a page rendered before the merge, with its old ETag', `${ms(rerendered)} (200: rendered again)`);
}
