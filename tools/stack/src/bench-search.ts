import { performance } from 'node:perf_hooks';
import { connectDatabase, createLogger, seededRandom } from '@quire/runtime';
import { apiClient, type ApiClient, type TestStack, successBody } from '@quire/testkit';
import { quantile, summary } from './bench-stats';

/**
 * Search benchmark for `npm run bench`: a 10,000-page space of varied markdown (a few
 * hundred words a page, headings, lists, code; words drawn from a Zipf-distributed
 * vocabulary so that queries hit from a handful to thousands of pages), written over
 * HTTP in change request batches of 50 and merged. Reports the first search (which
 * builds the index), then p50/p95 over distinct queries of four kinds (one word, two
 * words, a typo, a prefix), the next page of a large result, the stored index size, and
 * the first search after a merge that edits one page (time from the merge's response to
 * the search's answer: what a reader waits for after a content change).
 */

const PAGES = 10_000;
const BATCH = 50;
const QUERIES_PER_KIND = 30;

const COMMON = 'the a to of and in is for you with on this that be it can your are as by from an or when use if not will each'.split(' ');
const TECHNICAL = (
  'installation configuration authentication authorization deployment kubernetes container docker image registry ' +
  'cluster node pod service endpoint webhook integration token session cookie password account organization member ' +
  'team role permission policy audit log metric alert dashboard monitoring tracing latency throughput cache ' +
  'invalidation database migration schema index query transaction replica backup restore snapshot storage bucket ' +
  'upload download file folder archive export import synchronization repository branch commit merge conflict review ' +
  'release version upgrade rollback pipeline build artifact environment variable secret certificate encryption ' +
  'network proxy gateway firewall domain hostname redirect routing request response header payload timeout retry ' +
  'queue worker scheduler cron job event stream subscription notification email template theme layout navigation ' +
  'sidebar search analytics report billing invoice subscription plan quota limit throttling pagination cursor ' +
  'filter sorting language translation localization accessibility keyboard shortcut editor markdown preview ' +
  'publish visibility collection space page section heading paragraph table column diagram embed widget plugin ' +
  'extension script runtime function handler callback promise error exception debugging troubleshooting'
).split(' ');
const SYLLABLES = 'ka zo ri mu te lan vor pex qui sa del nor bex tri lum gan fo xi dra pel'.split(' ');

/** Common words first, then technical terms, then made-up product names: a long tail of rare words. */
function vocabulary(next: () => number): string[] {
  const names = new Set<string>();
  while (names.size < 4_000) {
    const length = 2 + Math.floor(next() * 3);
    names.add(Array.from({ length }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(''));
  }
  return [...new Set([...COMMON, ...TECHNICAL, ...names])];
}

/** Samples word ranks with probability ∝ 1/rank (Zipf's law, as in natural text). */
function zipfSampler(size: number, next: () => number): () => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= size; rank++) cumulative.push((total += 1 / rank));
  return () => {
    const target = next() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

interface Generator {
  words: string[];
  next: () => number;
  word: () => string;
  technical: () => string;
}

function generator(seed: number): Generator {
  const next = seededRandom(seed);
  const words = vocabulary(next);
  const rank = zipfSampler(words.length, next);
  return { words, next, word: () => words[rank()], technical: () => TECHNICAL[Math.floor(next() * TECHNICAL.length)] };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const between = (g: Generator, low: number, high: number) => low + Math.floor(g.next() * (high - low + 1));

function sentence(g: Generator): string {
  return `${capitalized(Array.from({ length: between(g, 6, 16) }, g.word).join(' '))}.`;
}

function paragraph(g: Generator): string {
  return Array.from({ length: between(g, 2, 5) }, () => sentence(g)).join(' ');
}

/** A page body of roughly 200–500 words: an introduction and 3–6 sections. */
function markdownBody(g: Generator): string {
  const blocks = [paragraph(g)];
  const sections = between(g, 3, 6);
  for (let s = 0; s < sections; s++) {
    blocks.push(`## ${capitalized(Array.from({ length: between(g, 1, 3) }, g.technical).join(' '))}`);
    blocks.push(paragraph(g));
    const extra = g.next();
    if (extra < 0.25) blocks.push(Array.from({ length: between(g, 2, 4) }, () => `- ${sentence(g)}`).join('\n'));
    else if (extra < 0.4) blocks.push(`\`\`\`bash\nquire ${g.technical()} --${g.technical()} ${g.word()}\n\`\`\``);
    else if (extra < 0.6) blocks.push(paragraph(g));
  }
  return blocks.join('\n\n');
}

/** The space: 200 top-level pages with 49 sub-pages each, written 50 pages per request. */
async function buildSpace(api: ApiClient, organizationId: string, g: Generator): Promise<string> {
  const spaceId = successBody(await api.post(`/v1/orgs/${organizationId}/spaces`, { title: 'Search bench' }), 'create space').id;
  const cr = successBody(await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: `${PAGES} pages` }), 'create change request').id;
  for (let start = 0; start < PAGES; start += BATCH) {
    const changes = Array.from({ length: Math.min(BATCH, PAGES - start) }, (_, i) => {
      const n = start + i;
      return {
        type: 'insert_page',
        ...(i === 0 ? { ref: 'group' } : { into: 'group' }),
        title: capitalized(Array.from({ length: between(g, 2, 4) }, g.technical).join(' ')),
        slug: `page-${n}`,
        ...(g.next() < 0.5 ? { description: sentence(g).slice(0, 500) } : {}),
        markdown: markdownBody(g),
      };
    });
    successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content`, { changes }), 'insert pages');
  }
  successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`), 'merge');
  return spaceId;
}

type Kind = 'one word' | 'two words' | 'typo' | 'prefix';

/** Distinct queries of each kind, over common, technical and rare words. */
function queries(g: Generator): Array<{ kind: Kind; query: string }> {
  const pick = (i: number) => g.words[Math.min(g.words.length - 1, Math.floor(COMMON.length + ((i * i * 7) % (g.words.length - COMMON.length))))];
  // Words long enough to be matched with a typo (one edit per five letters).
  const long = TECHNICAL.filter((word) => word.length >= 6);
  const out: Array<{ kind: Kind; query: string }> = [];
  for (let i = 0; i < QUERIES_PER_KIND; i++) {
    const word = pick(i);
    const technical = TECHNICAL[(i * 7) % TECHNICAL.length];
    const misspelt = long[(i * 7) % long.length];
    const cut = 2 + (i % (misspelt.length - 3));
    out.push({ kind: 'one word', query: i % 2 === 0 ? word : technical });
    out.push({ kind: 'two words', query: `${technical} ${TECHNICAL[(i * 13 + 5) % TECHNICAL.length]}` });
    // One letter dropped inside the word.
    out.push({ kind: 'typo', query: misspelt.slice(0, cut) + misspelt.slice(cut + 1) });
    out.push({ kind: 'prefix', query: `${i % 3 === 0 ? `${word} ` : ''}${TECHNICAL[(i * 11 + 3) % TECHNICAL.length].slice(0, 4 + (i % 3))}` });
  }
  return out;
}

export async function benchSearch(stack: Pick<TestStack, 'baseUrl' | 'cli' | 'processEnv'>, options: { log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const owner = await stack.cli(['bootstrap', '--email', `bench-search-${Date.now()}@bench.test`, '--org', 'Bench search', '--json']);
  const api = apiClient(stack.baseUrl, owner.token);
  const g = generator(42);

  let started = performance.now();
  const spaceId = await buildSpace(api, owner.organizationId, g);
  log(
    `${`write a ${PAGES.toLocaleString('en')}-page space (${PAGES / BATCH} batches + merge)`.padEnd(64)} ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const search = (query: string, page?: string) =>
    api.get(`/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}&limit=20${page ? `&page=${encodeURIComponent(page)}` : ''}`);
  started = performance.now();
  const first = successBody(await search('installation'), 'first search');
  log(`${'first search of the space (builds and stores the index)'.padEnd(64)} ${(performance.now() - started).toFixed(0)} ms (${first.count} hits)`);

  const byKind = new Map<Kind, number[]>();
  const all: number[] = [];
  const hits: number[] = [];
  for (const { kind, query } of queries(g)) {
    const at = performance.now();
    const body = successBody(await search(query), `search ${query}`);
    const elapsed = performance.now() - at;
    all.push(elapsed);
    hits.push(body.count);
    byKind.set(kind, [...(byKind.get(kind) ?? []), elapsed]);
  }
  log(`${'GET /v1/spaces/{id}/search?limit=20, distinct queries'.padEnd(64)} ${summary(all)}`);
  for (const [kind, samples] of byKind) log(`${`  ${kind}`.padEnd(64)} ${summary(samples)}`);
  log(`${'  hits per query'.padEnd(64)} min ${Math.min(...hits)} · median ${quantile(hits, 0.5)} · max ${Math.max(...hits)}`);

  // Following next.page: the ranked list of the query is not computed again.
  const broad = successBody(await search('the'), 'broad search');
  const pages: number[] = [];
  let cursor = broad.next?.page as string | undefined;
  for (let i = 0; i < 30 && cursor; i++) {
    const at = performance.now();
    cursor = successBody(await search('the', cursor), 'next page').next?.page;
    pages.push(performance.now() - at);
  }
  log(`${`next pages of a ${broad.count.toLocaleString('en')}-hit query`.padEnd(64)} ${summary(pages)}`);

  const revisionId = successBody(await api.get(`/v1/spaces/${spaceId}`), 'space').revision as string;
  const db = await connectDatabase(
    'content',
    { MONGODB_URI: stack.processEnv.MONGODB_URI as string, DB_PREFIX: stack.processEnv.DB_PREFIX as string },
    createLogger('bench', 'warn'),
    () => {},
  );
  const storedIndex = async (revision: string) => {
    const parts = await db
      .collection('search_indexes')
      .find({ revisionId: revision }, { projection: { size: 1, part: 1, base: 1 } })
      .toArray();
    return { size: Number(parts[0]?.size ?? 0), parts: parts.length, base: (parts.find((part) => part.part === 0)?.base as string | null) ?? null };
  };
  try {
    const stored = await storedIndex(revisionId);
    log(
      `${'stored index (gzip’d JSON: both indexes, page and section text)'.padEnd(64)} ${(stored.size / 1024 / 1024).toFixed(1)} MB in ${stored.parts} part(s)`,
    );
    await benchMergeThenSearch(api, spaceId, g, first.items[0].id as string, storedIndex, log);
  } finally {
    await db.close();
  }
}

/**
 * One page edited in a change request and merged; the first search right after the
 * merge's response (the index of the new revision is derived from the previous one's),
 * later searches, and what was stored for the new revision.
 */
async function benchMergeThenSearch(
  api: ApiClient,
  spaceId: string,
  g: Generator,
  pageId: string,
  storedIndex: (revision: string) => Promise<{ size: number; parts: number; base: string | null }>,
  log: (line: string) => void,
): Promise<void> {
  const search = (query: string) => api.get(`/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}&limit=20`);
  const cr = successBody(await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Edit one page' }), 'create change request').id;
  const markerWord = 'quokkaplatypus';
  successBody(
    await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ type: 'update_page', page: pageId, markdown: `${markdownBody(g)}\n\n## Wildlife\n\nA ${markerWord} lives here.` }],
    }),
    'edit one page',
  );
  const started = performance.now();
  successBody(await api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`), 'merge');
  const merged = performance.now();
  const afterMerge = successBody(await search(markerWord), 'search after the merge');
  const answered = performance.now();
  if (afterMerge.count !== 1 || afterMerge.items[0].id !== pageId)
    throw new Error(`search after the merge: expected the edited page, got ${JSON.stringify(afterMerge.items)}`);
  log(`${'merge editing 1 page of the space (response time)'.padEnd(64)} ${(merged - started).toFixed(0)} ms`);
  log(`${'first search after that merge (from the merge response)'.padEnd(64)} ${(answered - merged).toFixed(0)} ms`);
  const later: number[] = [];
  for (const { query } of queries(g).slice(0, 40)) {
    const at = performance.now();
    successBody(await search(query), `search ${query}`);
    later.push(performance.now() - at);
  }
  log(`${'  later searches of the merged revision'.padEnd(64)} ${summary(later)}`);
  const revisionId = successBody(await api.get(`/v1/spaces/${spaceId}`), 'space').revision as string;
  // Stored in the background: wait for it (bounded).
  let stored = await storedIndex(revisionId);
  for (let waited = 0; stored.parts === 0 && waited < 30_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    stored = await storedIndex(revisionId);
  }
  const form = stored.parts === 0 ? 'not stored' : stored.base ? 'a delta on the previous snapshot' : 'a snapshot';
  log(`${'  stored index of the merged revision'.padEnd(64)} ${(stored.size / 1024).toFixed(1)} KB, ${form}`);
}
