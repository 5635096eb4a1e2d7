import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import { httpError } from '@quire/http';
import { withRedisLock } from '@quire/runtime';
import type { RevisionDoc, RevisionPageDoc } from '../db/revisions';
import type { ContentContext } from './context';
import { LruCache } from './lru';
import { pagePaths } from './page-tree';
import { loadBodies, loadRevision } from './revisions';
import { markdownSections, normalizeTerm, words } from './search-sections';
import { deleteIndexData, readIndexData, readIndexHead, storeIndexData } from './search-store';

/*
 * The full-text index of one revision. Revisions are immutable, so each has one index:
 * kept in memory (bounded LRU) and stored so another replica or a restart loads it
 * instead of making it again. Concurrent first searches share one making (a promise per
 * revision here, a Redis lock across replicas).
 *
 * A content change costs O(changed pages): the index of a revision is derived from its
 * parent revision's (in memory, else stored) by removing the documents of changed and
 * deleted pages and adding the new ones, and it is stored as a delta (the re-cut pages'
 * sections) on the last stored snapshot. A full build (and a snapshot) happens only
 * without a parent index or when more than MAX_CHANGED_FRACTION of the pages changed.
 * The MiniSearch objects are mutable, so a derivation takes them over from the parent's
 * index (the parent keeps its page and section data to present ranked lists computed
 * before, but ranks no more: a new ranking of it loads or builds it again).
 *
 * Two MiniSearch indexes: pages (title, description) and sections (heading, text). Kept
 * apart because BM25 normalizes by a field's average length over all documents of an
 * index: mixing pages and sections in one index would make every page title look long.
 */

export interface IndexedSection {
  /** Heading anchor, unique in the page; null for the text before the first heading. */
  anchor: string | null;
  heading: string;
  text: string;
}

export interface IndexedPage {
  id: string;
  title: string;
  description: string;
  path: string;
  /** Position of the parent page in `pages` (-1 at the root). */
  parent: number;
  /** What the sections were cut from: the body hash, or GENERATED for a computed page. */
  source: string;
  /** The page's sections in order; section k is the document `<page id>:<k>` of the section index. */
  sections: IndexedSection[];
}

/** The two MiniSearch indexes: mutable, so owned by one SearchIndex at a time. */
export interface SearchEngine {
  pageSearch: MiniSearch;
  sectionSearch: MiniSearch;
}

/** How an index's stored form relates to a stored snapshot. */
interface StoredForm {
  /** The revision whose snapshot it is stored on (its own id for a snapshot). */
  base: string;
  /** The pages whose sections differ from the base snapshot's. */
  dirty: ReadonlySet<string>;
}

export interface SearchIndex {
  revisionId: string;
  /** In the revision's pre-order: a page's position breaks ties between equal scores. */
  pages: IndexedPage[];
  /** Page id → position in `pages`. */
  position: Map<string, number>;
  /** Null once taken over by a child revision's index: then it only presents ranked lists made before. */
  engine: SearchEngine | null;
  /** Characters of titles, descriptions, headings and text held: the memory estimate. */
  textChars: number;
  /** Known once stored or loaded; unknown (children are then stored whole) when another replica stored it. */
  stored?: StoredForm;
  /** Until stored: the index this one was derived from and the pages whose sections were cut again. */
  derivation?: { parent: SearchIndex; recut: ReadonlySet<string> };
}

/** Page id and section ordinal of a section document id (`<page id>:<k>`). */
export function sectionRef(id: string): { pageId: string; ordinal: number } {
  const cut = id.lastIndexOf(':');
  return { pageId: id.slice(0, cut), ordinal: Number(id.slice(cut + 1)) };
}

const PAGE_OPTIONS: Options = { fields: ['title', 'description'], tokenize: words, processTerm: normalizeTerm };
const SECTION_OPTIONS: Options = { fields: ['heading', 'text'], tokenize: words, processTerm: normalizeTerm };

/** Past this share of changed pages, making the index afresh costs about as much as changing it. */
const MAX_CHANGED_FRACTION = 0.3;
const tooMany = (changed: number, pages: number) => changed > MAX_CHANGED_FRACTION * Math.max(1, pages);

// A computed page's generated body is not stored markdown: only its title and description are searchable.
const GENERATED = 'generated';
const sourceOf = (page: RevisionPageDoc) => (page.computed ? GENERATED : page.bodyHash);

type PriorPage = Pick<IndexedPage, 'id' | 'title' | 'description' | 'source' | 'sections'>;

const pageDocument = (page: Pick<IndexedPage, 'id' | 'title' | 'description'>) => ({ id: page.id, title: page.title, description: page.description });
const sectionDocument = (pageId: string, ordinal: number, section: IndexedSection) => ({
  id: `${pageId}:${ordinal}`,
  heading: section.heading,
  text: section.text,
});

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
// Pages indexed between two yields: other requests are served while a large index is made.
const PAGES_PER_SLICE = 200;

/** Pages of `revision` whose sections must be cut (new, or another body), and how many pages differ at all. */
function changesFrom(prior: ReadonlyMap<string, Pick<PriorPage, 'title' | 'description' | 'source'>>, revision: RevisionDoc) {
  const recut: RevisionPageDoc[] = [];
  let count = 0;
  for (const page of revision.pages) {
    const old = prior.get(page.id);
    if (!old || old.source !== sourceOf(page)) {
      recut.push(page);
      count++;
    } else if (old.title !== page.title || old.description !== (page.description ?? '')) {
      count++;
    }
  }
  const present = new Set(revision.pages.map((page) => page.id));
  for (const id of prior.keys()) if (!present.has(id)) count++;
  return { recut, count };
}

/** The sections of `pages`, cut from their bodies (only these bodies are loaded). */
async function cutSections(ctx: ContentContext, pages: RevisionPageDoc[]): Promise<Map<string, IndexedSection[]>> {
  const bodies = await loadBodies(
    ctx,
    pages.filter((page) => !page.computed),
  );
  const out = new Map<string, IndexedSection[]>();
  for (const [n, page] of pages.entries()) {
    if (n > 0 && n % PAGES_PER_SLICE === 0) await yieldToEventLoop();
    out.set(page.id, page.computed ? [] : markdownSections(bodies.get(page.bodyHash) ?? ''));
  }
  return out;
}

interface AverageInternals {
  _fieldLength: Map<number, unknown>;
  _avgFieldLength: unknown;
  _documentCount: unknown;
}

/** MiniSearch's internals that settleAverages rewrites, or null when they are not where it expects them. */
function averageInternals(search: MiniSearch): AverageInternals | null {
  const internals = search as unknown as Partial<AverageInternals>;
  const count = search.documentCount;
  const expected =
    internals._fieldLength instanceof Map &&
    internals._fieldLength.size === count &&
    internals._documentCount === count &&
    Array.isArray(internals._avgFieldLength);
  return expected ? (internals as AverageInternals) : null;
}

/**
 * MiniSearch keeps each field's average length as a running mean, updated on every
 * addition and removal, so an index changed by removals and additions would score a hair
 * off one built at once. The exact means (sum of lengths / documents) make both score
 * alike. This reaches into MiniSearch's internals (the fields its toJSON writes): when
 * they are not as expected (another MiniSearch version) it changes nothing and returns
 * false, and a changed index is then refused (made afresh instead).
 */
export function settleAverages(search: MiniSearch): boolean {
  const internals = averageInternals(search);
  if (!internals) return false;
  const count = search.documentCount;
  const sums: number[] = [];
  for (const perField of internals._fieldLength.values()) {
    if (!Array.isArray(perField)) return false;
    for (let field = 0; field < perField.length; field++) sums[field] = (sums[field] ?? 0) + ((perField[field] as number | undefined) ?? 0);
  }
  if (sums.some((sum) => !Number.isFinite(sum))) return false;
  internals._avgFieldLength = sums.map((sum) => sum / count);
  return true;
}

/**
 * Turns `engine`, which indexes the `prior` pages, into the index of `revision`: removes
 * the documents of deleted pages and the sections of `recut` pages, adds their new
 * sections and the changed page documents, and lays out the revision's pages (paths and
 * parents are the revision's: a renamed or moved parent changes no document). Throws
 * when a page that is not re-cut has no sections from the same body in `prior` (a stale
 * stored index), and when a changed index's averages cannot be settled.
 */
async function applyChanges(
  engine: SearchEngine,
  prior: ReadonlyMap<string, PriorPage>,
  revision: RevisionDoc,
  recut: ReadonlyMap<string, IndexedSection[]>,
): Promise<Pick<SearchIndex, 'pages' | 'position' | 'textChars'>> {
  const { pageSearch, sectionSearch } = engine;
  const position = new Map(revision.pages.map((page, index) => [page.id, index]));
  let work = 0;
  const step = async () => {
    if (++work % PAGES_PER_SLICE === 0) await yieldToEventLoop();
  };
  // Documents removed from or added to the prior index (a full build has no prior one).
  let edits = 0;
  for (const old of prior.values()) {
    const kept = position.has(old.id);
    if (!kept) pageSearch.remove(pageDocument(old));
    if (!kept || recut.has(old.id)) {
      old.sections.forEach((section, ordinal) => sectionSearch.remove(sectionDocument(old.id, ordinal, section)));
      edits += 1 + old.sections.length;
      await step();
    }
  }
  const paths = pagePaths(revision.pages);
  const pages: IndexedPage[] = [];
  let textChars = 0;
  for (const page of revision.pages) {
    const old = prior.get(page.id);
    const entry = { id: page.id, title: page.title, description: page.description ?? '' };
    if (!old || old.title !== entry.title || old.description !== entry.description) {
      if (old) pageSearch.remove(pageDocument(old));
      pageSearch.add(pageDocument(entry));
      edits++;
    }
    let sections = recut.get(page.id);
    if (sections) {
      sections.forEach((section, ordinal) => sectionSearch.add(sectionDocument(page.id, ordinal, section)));
      edits += sections.length;
      await step();
    } else if (old && old.source === sourceOf(page)) {
      sections = old.sections;
    } else {
      throw new Error(`search index: no sections of page ${page.id} for its body`);
    }
    textChars += entry.title.length + entry.description.length;
    for (const section of sections) textChars += section.heading.length + section.text.length;
    const parent = page.parent ? (position.get(page.parent) ?? -1) : -1;
    pages.push({ ...entry, path: paths.get(page.id) ?? page.slug, parent, source: sourceOf(page), sections });
  }
  // A full build may keep MiniSearch's own means; a changed index may not (it would score off a build).
  const settled = settleAverages(pageSearch) && settleAverages(sectionSearch);
  if (!settled && prior.size > 0 && edits > 0)
    throw new Error('search index: MiniSearch internals not as expected; a changed index would not score like a built one');
  return { pages, position, textChars };
}

const newEngine = (): SearchEngine => ({ pageSearch: new MiniSearch(PAGE_OPTIONS), sectionSearch: new MiniSearch(SECTION_OPTIONS) });

/** The index of `revision`, made from nothing. */
async function buildIndex(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex> {
  const timer = phases();
  const recut = await cutSections(ctx, revision.pages);
  timer.lap('cut');
  const engine = newEngine();
  const made = await applyChanges(engine, new Map(), revision, recut);
  timer.lap('index');
  ctx.logger.info({ revisionId: revision._id, pages: made.pages.length, ms: timer.laps }, 'search index built');
  return { revisionId: revision._id, ...made, engine };
}

/**
 * The index of `revision` derived from `parent`'s: the `recut` pages' sections are cut,
 * then `parent`'s engine is taken over at once (whoever holds `parent` sees it searchable
 * or retired, never half changed). Null when another child took it over meanwhile.
 */
async function deriveIndex(ctx: ContentContext, parent: SearchIndex, revision: RevisionDoc, recut: RevisionPageDoc[]): Promise<SearchIndex | null> {
  const timer = phases();
  const sections = await cutSections(ctx, recut);
  timer.lap('cut');
  const engine = parent.engine;
  // An engine whose averages could not be settled after the change stays the parent's (see settleAverages).
  if (!engine || !averageInternals(engine.pageSearch) || !averageInternals(engine.sectionSearch)) return null;
  parent.engine = null;
  if (cache.get(parent.revisionId) === parent) remember(parent);
  const prior = new Map(parent.pages.map((page) => [page.id, page]));
  const made = await applyChanges(engine, prior, revision, sections);
  timer.lap('index');
  ctx.logger.info({ revisionId: revision._id, from: parent.revisionId, pages: made.pages.length, recut: recut.length, ms: timer.laps }, 'search index derived');
  return { revisionId: revision._id, ...made, engine, derivation: { parent, recut: new Set(sections.keys()) } };
}

/* ---- the stored forms: a snapshot (everything) or a delta (re-cut pages) on a snapshot ---- */

interface SnapshotRecord {
  kind: 'snapshot';
  pages: Array<[id: string, title: string, description: string, source: string]>;
  sections: Array<[page: number, anchor: string | null, heading: string, text: string]>;
  pageIndex: AsPlainObject;
  sectionIndex: AsPlainObject;
}

interface DeltaRecord {
  kind: 'delta';
  base: string;
  /** The pages whose sections differ from the base snapshot's: their body and sections. */
  pages: Array<[id: string, source: string, sections: Array<[anchor: string | null, heading: string, text: string]>]>;
}

// Fast compression: a stored index is written once per revision and read rarely.
const GZIP_LEVEL = 1;

function snapshotOf(index: SearchIndex): string {
  if (!index.engine) throw new Error(`search index of ${index.revisionId}: taken over before it was stored`);
  const record: SnapshotRecord = {
    kind: 'snapshot',
    pages: index.pages.map((page) => [page.id, page.title, page.description, page.source]),
    sections: index.pages.flatMap((page, position) =>
      page.sections.map((section): SnapshotRecord['sections'][number] => [position, section.anchor, section.heading, section.text]),
    ),
    pageIndex: index.engine.pageSearch.toJSON(),
    sectionIndex: index.engine.sectionSearch.toJSON(),
  };
  return JSON.stringify(record);
}

function deltaOf(index: SearchIndex, base: string, dirty: ReadonlySet<string>): string {
  const record: DeltaRecord = { kind: 'delta', base, pages: [] };
  for (const id of dirty) {
    const page = index.pages[index.position.get(id) as number];
    record.pages.push([id, page.source, page.sections.map((section) => [section.anchor, section.heading, section.text])]);
  }
  return JSON.stringify(record);
}

async function readRecord(ctx: ContentContext, revisionId: string): Promise<SnapshotRecord | DeltaRecord | null> {
  const data = await readIndexData(ctx.models, revisionId);
  if (!data) return null;
  return JSON.parse((await promisify(gunzip)(data)).toString('utf8')) as SnapshotRecord | DeltaRecord;
}

async function inflate(snapshot: SnapshotRecord): Promise<{ prior: Map<string, PriorPage>; engine: SearchEngine }> {
  const pages: PriorPage[] = snapshot.pages.map(([id, title, description, source]) => ({ id, title, description, source, sections: [] }));
  for (const [page, anchor, heading, text] of snapshot.sections) pages[page].sections.push({ anchor, heading, text });
  // The async loaders yield to the event loop while rebuilding large term maps.
  const [pageSearch, sectionSearch] = await Promise.all([
    MiniSearch.loadJSAsync(snapshot.pageIndex, PAGE_OPTIONS),
    MiniSearch.loadJSAsync(snapshot.sectionIndex, SECTION_OPTIONS),
  ]);
  return { prior: new Map(pages.map((page) => [page.id, page])), engine: { pageSearch, sectionSearch } };
}

/** The stored index of `revision` (a snapshot, or a delta applied to its base snapshot), or null when there is no usable one. */
async function loadStored(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex | null> {
  const timer = phases();
  try {
    const record = await readRecord(ctx, revision._id);
    if (!record) return null;
    let snapshot = record;
    const recut = new Map<string, IndexedSection[]>();
    if (record.kind === 'delta') {
      const base = await readRecord(ctx, record.base);
      if (base?.kind !== 'snapshot') return null;
      snapshot = base;
      const pages = new Map(revision.pages.map((page) => [page.id, page]));
      for (const [id, source, sections] of record.pages) {
        const page = pages.get(id);
        if (!page || sourceOf(page) !== source) throw new Error(`search index delta: page ${id} differs from the revision`);
        recut.set(
          id,
          sections.map(([anchor, heading, text]) => ({ anchor, heading, text })),
        );
      }
    }
    timer.lap('read');
    const { prior, engine } = await inflate(snapshot as SnapshotRecord);
    timer.lap('load');
    const made = await applyChanges(engine, prior, revision, recut);
    timer.lap('apply');
    const stored: StoredForm = record.kind === 'delta' ? { base: record.base, dirty: new Set(recut.keys()) } : { base: revision._id, dirty: new Set() };
    ctx.logger.info({ revisionId: revision._id, base: stored.base, ms: timer.laps }, 'search index loaded');
    return { revisionId: revision._id, ...made, engine, stored };
  } catch (error) {
    // Made again by the caller: a stored index is a cache.
    ctx.logger.warn({ err: error, revisionId: revision._id }, 'stored search index unusable');
    return null;
  }
}

/**
 * Stores the index of `revision`: as a delta on the snapshot its parent's stored form
 * builds on while the pages re-cut since that snapshot stay few, else as a snapshot. Then
 * drops the stored indexes of the parents that nothing needs any more.
 */
async function storeIndex(ctx: ContentContext, revision: RevisionDoc, index: SearchIndex): Promise<void> {
  const timer = phases();
  let form: StoredForm = { base: revision._id, dirty: new Set() };
  const parentForm = index.derivation?.parent.stored;
  if (index.derivation && parentForm) {
    const dirty = new Set([...parentForm.dirty].filter((id) => index.position.has(id)));
    for (const id of index.derivation.recut) dirty.add(id);
    if (!tooMany(dirty.size, index.pages.length) && (await readIndexHead(ctx.models, parentForm.base))?.base === null) form = { base: parentForm.base, dirty };
  }
  const json = form.base === revision._id ? snapshotOf(index) : deltaOf(index, form.base, form.dirty);
  timer.lap('serialize');
  const data = await promisify(gzip)(json, { level: GZIP_LEVEL });
  timer.lap('gzip');
  await storeIndexData(ctx.models, { revisionId: revision._id, spaceId: revision.spaceId, base: form.base === revision._id ? null : form.base }, data);
  index.stored = form;
  index.derivation = undefined;
  await dropReplaced(ctx, revision, form.base);
  timer.lap('store');
  ctx.logger.info({ revisionId: revision._id, base: form.base, dirty: form.dirty.size, bytes: data.length, ms: timer.laps }, 'search index stored');
}

/**
 * The stored indexes of `revision`'s parents (and the snapshots their deltas build on) are
 * searched no more once its own is stored; in-memory copies age out of the LRU. Kept: what
 * `revision`'s stored form and the space's current revision's build on (a revision searched
 * through an old cursor must not delete what the current one needs).
 */
async function dropReplaced(ctx: ContentContext, revision: RevisionDoc, base: string): Promise<void> {
  const keep = new Set([revision._id, base]);
  const space = await ctx.models.Space.findById(revision.spaceId, { revisionId: 1 }).lean<{ revisionId: string }>();
  if (space) {
    keep.add(space.revisionId);
    const current = await readIndexHead(ctx.models, space.revisionId);
    if (current?.base) keep.add(current.base);
  }
  for (const parent of revision.parents) {
    // Of any format: an outdated delta's base snapshot (outdated too) goes with it.
    const head = await readIndexHead(ctx.models, parent, true);
    if (!keep.has(parent)) await deleteIndexData(ctx.models, parent);
    if (head?.base && !keep.has(head.base)) await deleteIndexData(ctx.models, head.base);
  }
}

/* ---- the cache and the one making per revision ---- */

// Measured on a 10,000-page space (~20 M characters of text): the text takes ~1.1 bytes of
// heap per character, the two MiniSearch indexes ~5.8 more; a page's entry ~200 bytes.
const TEXT_HEAP_PER_CHAR = 1.1;
const ENGINE_HEAP_PER_CHAR = 5.8;
const PAGE_HEAP = 200;
const MAX_CACHED_HEAP_BYTES = 256 * 1024 * 1024;
const cache = new LruCache<SearchIndex>(MAX_CACHED_HEAP_BYTES);
const pending = new Map<string, Promise<SearchIndex>>();
/** Background stores of derived indexes, by revision: a child waits for its parent's before taking its engine. */
const persisting = new Map<string, Promise<void>>();

function remember(index: SearchIndex): void {
  const weight = index.textChars * (TEXT_HEAP_PER_CHAR + (index.engine ? ENGINE_HEAP_PER_CHAR : 0)) + index.pages.length * PAGE_HEAP;
  // An index larger than the whole budget is still kept (alone): loading it per request would be far worse.
  cache.set(index.revisionId, index, Math.min(Math.ceil(weight), MAX_CACHED_HEAP_BYTES));
}

const LOCK = { ttlMs: 120_000, waitMs: 120_000 };
const lockKey = (revisionId: string) => `content:lock:search-index:${revisionId}`;

/** Derives the index of `revision` from a parent's held in memory; null when none is (or too much changed). */
async function deriveFromMemory(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex | null> {
  for (const parentId of revision.parents) {
    // A parent being made or stored is worth the wait: deriving costs a fraction of a build.
    await pending.get(parentId)?.catch(() => undefined);
    await persisting.get(parentId);
    const parent = cache.get(parentId);
    if (!parent?.engine) continue;
    const { recut, count } = changesFrom(new Map(parent.pages.map((page) => [page.id, page])), revision);
    if (tooMany(count, revision.pages.length)) return null;
    const derived = await deriveIndex(ctx, parent, revision, recut);
    if (derived) return derived;
  }
  return null;
}

/** Derives the index of `revision` from a parent's stored one (loading it is about half a build). */
async function deriveFromStored(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex | null> {
  for (const parentId of revision.parents) {
    if (!(await readIndexHead(ctx.models, parentId))) continue;
    const parentRevision = await loadRevision(ctx, parentId);
    const before = new Map(parentRevision.pages.map((page) => [page.id, { title: page.title, description: page.description ?? '', source: sourceOf(page) }]));
    const { recut, count } = changesFrom(before, revision);
    if (tooMany(count, revision.pages.length)) return null;
    const parent = await loadStored(ctx, parentRevision);
    const derived = parent && (await deriveIndex(ctx, parent, revision, recut));
    if (derived) return derived;
  }
  return null;
}

/** Stores a derived index in the background (searches do not wait for it); failures are logged. */
function persistInBackground(ctx: ContentContext, revision: RevisionDoc, index: SearchIndex): void {
  const done = withRedisLock(
    ctx.redis,
    lockKey(revision._id),
    async () => {
      const head = await readIndexHead(ctx.models, revision._id);
      if (!head) return storeIndex(ctx, revision, index);
      // Another replica stored it meanwhile: a snapshot is a base for children, a delta of unknown pages is not.
      index.stored = head.base === null ? { base: revision._id, dirty: new Set() } : undefined;
    },
    { ...LOCK, logger: ctx.logger },
  )
    .catch((error: unknown) => ctx.logger.error({ err: error, revisionId: revision._id }, 'could not store the search index'))
    .finally(() => {
      index.derivation = undefined;
      persisting.delete(revision._id);
    });
  persisting.set(revision._id, done);
}

async function obtain(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex> {
  const derived = await deriveFromMemory(ctx, revision).catch((error: unknown) => {
    ctx.logger.warn({ err: error, revisionId: revision._id }, 'could not derive the search index; making it otherwise');
    return null;
  });
  if (derived) {
    remember(derived);
    persistInBackground(ctx, revision, derived);
    return derived;
  }
  const found =
    (await loadStored(ctx, revision)) ??
    (await withRedisLock(
      ctx.redis,
      lockKey(revision._id),
      async () => {
        // Whoever held the lock before us may have just stored it.
        const stored = await loadStored(ctx, revision);
        if (stored) return stored;
        const fromParent = await deriveFromStored(ctx, revision).catch((error: unknown) => {
          ctx.logger.warn({ err: error, revisionId: revision._id }, 'could not derive the search index from a stored one; building it');
          return null;
        });
        const index = fromParent ?? (await buildIndex(ctx, revision));
        // The index answers this search either way; not storing it only costs a later rebuild.
        await storeIndex(ctx, revision, index).catch((error: unknown) =>
          ctx.logger.error({ err: error, revisionId: revision._id }, 'could not store the search index'),
        );
        return index;
      },
      { ...LOCK, logger: ctx.logger, onBusy: () => httpError.unavailable('The search index of this space is being built; retry') },
    ));
  remember(found);
  return found;
}

/**
 * The search index of `revision`: from memory, else derived from a parent's, else
 * stored, else built (once). With `use: 'present'` an index taken over by a child
 * revision's is enough (it presents ranked lists made before; it cannot rank).
 */
export function revisionSearchIndex(ctx: ContentContext, revision: RevisionDoc, use: 'rank' | 'present' = 'rank'): Promise<SearchIndex> {
  const cached = cache.get(revision._id);
  if (cached && (cached.engine || use === 'present')) return Promise.resolve(cached);
  let loading = pending.get(revision._id);
  if (!loading) {
    loading = obtain(ctx, revision).finally(() => pending.delete(revision._id));
    pending.set(revision._id, loading);
  }
  return loading;
}

/**
 * Makes and stores the index of a new revision ahead of its first search, only when its
 * space is searched (a parent revision has an index): spaces nobody searches cost nothing.
 * Returns whether it did.
 */
export async function warmRevisionIndex(ctx: ContentContext, revision: RevisionDoc): Promise<boolean> {
  // Already made here, or stored by another replica (searches load it there).
  if (cache.get(revision._id) || pending.has(revision._id) || (await readIndexHead(ctx.models, revision._id))) return false;
  let searched = false;
  for (const parent of revision.parents) {
    searched = pending.has(parent) || cache.get(parent) !== undefined || (await readIndexHead(ctx.models, parent)) !== null;
    if (searched) break;
  }
  if (!searched) return false;
  await revisionSearchIndex(ctx, revision);
  await persisting.get(revision._id);
  return true;
}

/** Milliseconds per named phase, for the log. */
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
