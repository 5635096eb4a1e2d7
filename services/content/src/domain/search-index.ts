import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import { httpError } from '@quire/http';
import { withRedisLock } from '@quire/runtime';
import type { RevisionDoc } from '../db/revisions';
import type { SearchIndexModels, SearchIndexPartDoc } from '../db/search';
import type { ContentContext } from './context';
import { LruCache } from './lru';
import { pagePaths } from './page-tree';
import { loadBodies } from './revisions';
import { markdownSections, normalizeTerm, words } from './search-sections';

/*
 * The full-text index of one revision. Revisions are immutable, so an index is built
 * once per revision and never updated: kept in memory (bounded LRU), and persisted so
 * another replica or a restart loads it instead of building it again. Concurrent first
 * searches share one build (a promise per revision here, a Redis lock across replicas).
 *
 * Two MiniSearch indexes: pages (title, description) and sections (heading, text). Kept
 * apart because BM25 normalizes by a field's average length over all documents of an
 * index: mixing pages and sections in one index would make every page title look long.
 */

export interface IndexedPage {
  id: string;
  title: string;
  description: string;
  path: string;
  /** Position of the parent page in `pages` (-1 at the root). */
  parent: number;
  /** Position of the page's first section in `sections` (-1 when it has none). */
  firstSection: number;
}

export interface IndexedSection {
  /** Position of the page in `pages`. */
  page: number;
  anchor: string | null;
  heading: string;
  text: string;
}

export interface SearchIndex {
  revisionId: string;
  /** In the revision's pre-order: a page's position breaks ties between equal scores. */
  pages: IndexedPage[];
  sections: IndexedSection[];
  pageSearch: MiniSearch;
  sectionSearch: MiniSearch;
}

/** Bumped when tokenization or the stored layout changes: older persisted indexes are rebuilt. */
const FORMAT = 1;

const PAGE_OPTIONS: Options = { fields: ['title', 'description'], tokenize: words, processTerm: normalizeTerm };
const SECTION_OPTIONS: Options = { fields: ['heading', 'text'], tokenize: words, processTerm: normalizeTerm };

/** What is persisted: page and section metadata as tuples (no repeated keys) and both indexes. */
interface SerializedIndex {
  format: number;
  pages: Array<[id: string, title: string, description: string, path: string, parent: number]>;
  sections: Array<[page: number, anchor: string | null, heading: string, text: string]>;
  pageIndex: AsPlainObject;
  sectionIndex: AsPlainObject;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
// Pages indexed between two yields: other requests are served while a large index builds.
const PAGES_PER_SLICE = 200;

/** Indexes the pages and sections of `revision` (its bodies loaded); returns the index and its stored form (JSON). */
async function buildIndex(revision: RevisionDoc, bodies: Map<string, string>): Promise<{ index: SearchIndex; json: string }> {
  const paths = pagePaths(revision.pages);
  const position = new Map(revision.pages.map((page, index) => [page.id, index]));
  const pages: IndexedPage[] = [];
  const sections: IndexedSection[] = [];
  const pageSearch = new MiniSearch(PAGE_OPTIONS);
  const sectionSearch = new MiniSearch(SECTION_OPTIONS);
  for (const [index, page] of revision.pages.entries()) {
    if (index > 0 && index % PAGES_PER_SLICE === 0) await yieldToEventLoop();
    const parent = page.parent ? (position.get(page.parent) ?? -1) : -1;
    pages.push({ id: page.id, title: page.title, description: page.description ?? '', path: paths.get(page.id) ?? page.slug, parent, firstSection: -1 });
    pageSearch.add({ id: index, title: page.title, description: page.description ?? '' });
    // A generated body (computed page) is not stored markdown: only its title and description are searchable.
    if (page.computed) continue;
    for (const section of markdownSections(bodies.get(page.bodyHash) ?? '')) {
      if (pages[index].firstSection < 0) pages[index].firstSection = sections.length;
      sectionSearch.add({ id: sections.length, heading: section.heading, text: section.text });
      sections.push({ page: index, ...section });
    }
  }
  const serialized: SerializedIndex = {
    format: FORMAT,
    pages: pages.map((page) => [page.id, page.title, page.description, page.path, page.parent]),
    sections: sections.map((section) => [section.page, section.anchor, section.heading, section.text]),
    pageIndex: pageSearch.toJSON(),
    sectionIndex: sectionSearch.toJSON(),
  };
  // Only the JSON outlives this function: the plain-object copy of the index is garbage at once.
  return { index: { revisionId: revision._id, pages, sections, pageSearch, sectionSearch }, json: JSON.stringify(serialized) };
}

async function inflate(revisionId: string, serialized: SerializedIndex): Promise<SearchIndex> {
  const pages: IndexedPage[] = serialized.pages.map(([id, title, description, path, parent]) => ({ id, title, description, path, parent, firstSection: -1 }));
  const sections: IndexedSection[] = serialized.sections.map(([page, anchor, heading, text]) => ({ page, anchor, heading, text }));
  sections.forEach((section, index) => {
    if (pages[section.page].firstSection < 0) pages[section.page].firstSection = index;
  });
  // The async loaders yield to the event loop while rebuilding large term maps.
  const [pageSearch, sectionSearch] = await Promise.all([
    MiniSearch.loadJSAsync(serialized.pageIndex, PAGE_OPTIONS),
    MiniSearch.loadJSAsync(serialized.sectionIndex, SECTION_OPTIONS),
  ]);
  return { revisionId, pages, sections, pageSearch, sectionSearch };
}

/* ---- persistence: gzip'd JSON in parts of at most PART_BYTES ---- */

const PART_BYTES = 12 * 1024 * 1024;
// Fast compression: the stored index is written once per revision and read rarely.
const GZIP_LEVEL = 1;
const partId = (revisionId: string, part: number) => (part === 0 ? revisionId : `${revisionId}:${part}`);

function bufferOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  const bytes = (value as { buffer: Uint8Array }).buffer;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Stores `data` as the index of `revisionId`, replacing any earlier one (so a rebuild is
 * visible in `createdAt`). Part 0 is written last: a reader that finds it finds them all.
 */
export async function storeIndexData(
  models: SearchIndexModels,
  target: { revisionId: string; spaceId: string },
  data: Buffer,
  partBytes = PART_BYTES,
): Promise<void> {
  const parts = Math.max(1, Math.ceil(data.length / partBytes));
  const createdAt = new Date();
  for (let part = parts - 1; part >= 0; part--) {
    const doc: SearchIndexPartDoc = {
      _id: partId(target.revisionId, part),
      revisionId: target.revisionId,
      spaceId: target.spaceId,
      part,
      parts,
      format: FORMAT,
      size: data.length,
      data: data.subarray(part * partBytes, (part + 1) * partBytes),
      createdAt,
    };
    await models.SearchIndexPart.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }
}

/** The stored index of `revisionId`, or null when there is none (or an incomplete or outdated one). */
export async function readIndexData(models: SearchIndexModels, revisionId: string): Promise<Buffer | null> {
  const head = await models.SearchIndexPart.findById(revisionId).lean<SearchIndexPartDoc>();
  if (!head || head.format !== FORMAT) return null;
  const chunks = [bufferOf(head.data)];
  for (let part = 1; part < head.parts; part++) {
    const doc = await models.SearchIndexPart.findById(partId(revisionId, part)).lean<SearchIndexPartDoc>();
    if (!doc || doc.size !== head.size || doc.parts !== head.parts) return null;
    chunks.push(bufferOf(doc.data));
  }
  const data = Buffer.concat(chunks);
  return data.length === head.size ? data : null;
}

/** Removes the stored index of `revisionId` (point deletes by id). */
async function deleteIndexData(models: SearchIndexModels, revisionId: string): Promise<void> {
  const head = await models.SearchIndexPart.findById(revisionId, { parts: 1 }).lean<Pick<SearchIndexPartDoc, 'parts'>>();
  if (!head) return;
  for (let part = head.parts - 1; part >= 0; part--) await models.SearchIndexPart.deleteOne({ _id: partId(revisionId, part) });
}

/* ---- the cache and the one build per revision ---- */

// Bounded by the estimated heap of the indexes: measured at ~2.9 times their JSON size
// (a 10,000-page space of ~300 words a page: 45 MB of JSON, 130 MB of heap).
const HEAP_PER_JSON_CHAR = 3;
const MAX_CACHED_HEAP_BYTES = 256 * 1024 * 1024;
const cache = new LruCache<SearchIndex>(MAX_CACHED_HEAP_BYTES);
const pending = new Map<string, Promise<SearchIndex>>();

const LOCK = { ttlMs: 120_000, waitMs: 120_000 };

async function loadStored(ctx: ContentContext, revisionId: string): Promise<{ index: SearchIndex; jsonLength: number } | null> {
  const timer = phases();
  const data = await readIndexData(ctx.models, revisionId);
  if (!data) return null;
  timer.lap('read');
  const json = (await promisify(gunzip)(data)).toString('utf8');
  timer.lap('gunzip');
  const index = await inflate(revisionId, JSON.parse(json) as SerializedIndex);
  timer.lap('load');
  ctx.logger.info({ revisionId, bytes: data.length, ms: timer.laps }, 'search index loaded');
  return { index, jsonLength: json.length };
}

async function buildAndStore(ctx: ContentContext, revision: RevisionDoc): Promise<{ index: SearchIndex; jsonLength: number }> {
  const timer = phases();
  const bodies = await loadBodies(ctx, revision.pages);
  timer.lap('bodies');
  const { index, json } = await buildIndex(revision, bodies);
  timer.lap('index');
  const data = await promisify(gzip)(json, { level: GZIP_LEVEL });
  timer.lap('gzip');
  await storeIndexData(ctx.models, { revisionId: revision._id, spaceId: revision.spaceId }, data);
  // The revision this one replaced is searched no more (in-memory copies age out of the LRU).
  const previous = revision.parents[0];
  if (previous) await deleteIndexData(ctx.models, previous);
  timer.lap('store');
  ctx.logger.info({ revisionId: revision._id, pages: index.pages.length, sections: index.sections.length, bytes: data.length, ms: timer.laps }, 'search index built');
  return { index, jsonLength: json.length };
}

/** Milliseconds per named phase of a build, for the log. */
function phases() {
  let last = performance.now();
  const laps: Record<string, number> = {};
  return {
    laps,
    lap(name: string) {
      const now = performance.now();
      laps[name] = Math.round(now - last);
      last = now;
    },
  };
}

async function obtain(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex> {
  const found =
    (await loadStored(ctx, revision._id)) ??
    (await withRedisLock(
      ctx.redis,
      `content:lock:search-index:${revision._id}`,
      // Whoever held the lock before us may have just stored it.
      async () => (await loadStored(ctx, revision._id)) ?? (await buildAndStore(ctx, revision)),
      { ...LOCK, logger: ctx.logger, onBusy: () => httpError.unavailable('The search index of this space is being built; retry') },
    ));
  // An index larger than the whole budget is still kept (alone): loading it per request would be far worse.
  cache.set(revision._id, found.index, Math.min(found.jsonLength * HEAP_PER_JSON_CHAR, MAX_CACHED_HEAP_BYTES));
  return found.index;
}

/** The search index of `revision`: from memory, else from the store, else built (once). */
export function revisionSearchIndex(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex> {
  const cached = cache.get(revision._id);
  if (cached) return Promise.resolve(cached);
  let loading = pending.get(revision._id);
  if (!loading) {
    loading = obtain(ctx, revision).finally(() => pending.delete(revision._id));
    pending.set(revision._id, loading);
  }
  return loading;
}
