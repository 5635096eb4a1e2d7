import { withTenantSlot } from '@quire/async';
import { HttpError, httpError } from '@quire/http';
import { counterOf, declareCache, documentCacheOf, annotateSpan, inSpan, withRedisLock, type LruCache } from '@quire/runtime';
import type { ContentContext, SpaceDoc } from '../kernel';
import { loadRevision, type RevisionDoc, type RevisionPageDoc } from '../revisions';
import { applyChanges, averageInternals, buildIndex, changesFrom, cutSections, phases, sourceOf, tooMany, type SearchIndex } from './search-engine';
import { indexBuildsPerOrganization } from './search-settings';
import { readIndexHead } from './search-store';
import { loadStored, storeIndex } from './stored-index';

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
 * Loading a stored index or building one costs seconds of CPU for a large space: one
 * organization has at most SEARCH_INDEX_BUILDS_PER_ORGANIZATION of them under way at once over
 * every replica (cold searches of its large spaces do not take the CPU other organizations'
 * searches need); a search needing one more answers 429 with Retry-After. Derivations from an
 * index in memory cost O(changed pages) and are not counted.
 *
 * Two MiniSearch indexes: pages (title, description) and sections (heading, text). Kept
 * apart because BM25 normalizes by a field's average length over all documents of an
 * index: mixing pages and sections in one index would make every page title look long.
 */

// Measured on a 10,000-page space (~20 M characters of text): the text takes ~1.1 bytes of
// heap per character, the two MiniSearch indexes ~5.8 more; a page's entry ~200 bytes.
const TEXT_HEAP_PER_CHAR = 1.1;
const ENGINE_HEAP_PER_CHAR = 5.8;
const PAGE_HEAP = 200;

/** Indexes by revision id (ctx.caches.searchIndexes), with the makings under way (its shared loads). */
export const searchIndexCaches = { searchIndexes: declareCache<SearchIndex>(256) };

declare module '../kernel' {
  interface ContentCaches {
    searchIndexes: LruCache<SearchIndex>;
  }
}

function remember(ctx: ContentContext, index: SearchIndex): void {
  const cache = ctx.caches.searchIndexes;
  const weight = index.textChars * (TEXT_HEAP_PER_CHAR + (index.engine ? ENGINE_HEAP_PER_CHAR : 0)) + index.pages.length * PAGE_HEAP;
  // An index larger than the whole budget is still kept (alone): loading it per request would be far worse.
  cache.set(index.revisionId, index, Math.min(Math.ceil(weight), cache.maxWeight));
}

/**
 * Counts where this process got the indexes it made: built from the pages, derived from a
 * parent's, loaded as another replica or an earlier process stored it. A revision is built
 * or derived once over every replica; the others load it.
 */
const counted = (ctx: ContentContext, how: 'built' | 'derived' | 'loaded') => {
  annotateSpan({ 'quire.search.index.how': how });
  counterOf(ctx.metrics, {
    name: 'quire_search_indexes_made_total',
    help: 'Search indexes of revisions this process made, by how: built, derived from a parent, or loaded as stored',
    labelNames: ['how'] as const,
  }).inc({ how });
};

const LOCK = { ttlMs: 120_000, waitMs: 120_000 };
const lockKey = (revisionId: string) => `content:lock:search-index:${revisionId}`;
/** The slots of one organization's index builds (withTenantSlot). */
const buildSlotsKey = (organizationId: string) => `content:search-index-builds:${organizationId}`;
/** What a search refused a build slot is told to wait: a large space's build takes seconds. */
const BUILD_RETRY_AFTER_S = 2;

/** Runs `work` (loading or building the index of `revision`) in one of its organization's build slots. */
async function inBuildSlot<T>(ctx: ContentContext, revision: RevisionDoc, work: () => Promise<T>): Promise<T> {
  const space = await documentCacheOf(ctx.redis, ctx.logger).findById<SpaceDoc>(ctx.models.Space, revision.spaceId);
  if (!space) throw httpError.notFound('Space');
  const refused = () =>
    new HttpError(429, `Too many search indexes of this organization are being built: retry in ${BUILD_RETRY_AFTER_S} s`, {
      'Retry-After': String(BUILD_RETRY_AFTER_S),
    });
  return withTenantSlot(ctx.redis, buildSlotsKey(space.organizationId), indexBuildsPerOrganization(ctx), work, refused);
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
  if (ctx.caches.searchIndexes.get(parent.revisionId) === parent) remember(ctx, parent);
  const prior = new Map(parent.pages.map((page) => [page.id, page]));
  const made = await applyChanges(engine, prior, revision, sections);
  timer.lap('index');
  ctx.logger.info({ revisionId: revision._id, from: parent.revisionId, pages: made.pages.length, recut: recut.length, ms: timer.laps }, 'search index derived');
  return { revisionId: revision._id, ...made, engine, derivation: { parent, recut: new Set(sections.keys()) } };
}

/** Derives the index of `revision` from a parent's held in memory; null when none is (or too much changed). */
async function deriveFromMemory(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex | null> {
  for (const parentId of revision.parents) {
    // A parent being made or stored is worth the wait: deriving costs a fraction of a build.
    await ctx.caches.searchIndexes.loading(parentId)?.catch(() => undefined);
    let parent = ctx.caches.searchIndexes.get(parentId);
    if (parent?.storing) {
      await parent.storing;
      parent = ctx.caches.searchIndexes.get(parentId);
    }
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
      index.storing = undefined;
    });
  index.storing = done;
}

/** The index of `revision` made in this process (derived, loaded or built), in a span that says how. */
function obtain(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex> {
  const attributes = { 'quire.space.id': revision.spaceId, 'quire.revision.id': revision._id };
  return inSpan('search index', { attributes }, () => make(ctx, revision));
}

async function make(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex> {
  const derived = await deriveFromMemory(ctx, revision).catch((error: unknown) => {
    ctx.logger.warn({ err: error, revisionId: revision._id }, 'could not derive the search index; making it otherwise');
    return null;
  });
  if (derived) {
    counted(ctx, 'derived');
    remember(ctx, derived);
    persistInBackground(ctx, revision, derived);
    return derived;
  }
  const loaded = (index: SearchIndex | null) => {
    if (index) counted(ctx, 'loaded');
    return index;
  };
  const found = await inBuildSlot(
    ctx,
    revision,
    async () =>
      loaded(await loadStored(ctx, revision)) ??
      (await withRedisLock(
        ctx.redis,
        lockKey(revision._id),
        async () => {
          // Whoever held the lock before us may have just stored it.
          const stored = loaded(await loadStored(ctx, revision));
          if (stored) return stored;
          const fromParent = await deriveFromStored(ctx, revision).catch((error: unknown) => {
            ctx.logger.warn({ err: error, revisionId: revision._id }, 'could not derive the search index from a stored one; building it');
            return null;
          });
          counted(ctx, fromParent ? 'derived' : 'built');
          const index = fromParent ?? (await buildIndex(ctx, revision));
          // The index answers this search either way; not storing it only costs a later rebuild.
          await storeIndex(ctx, revision, index).catch((error: unknown) =>
            ctx.logger.error({ err: error, revisionId: revision._id }, 'could not store the search index'),
          );
          return index;
        },
        { ...LOCK, logger: ctx.logger, onBusy: () => httpError.unavailable('The search index of this space is being built; retry') },
      )),
  );
  remember(ctx, found);
  return found;
}

/**
 * The search index of `revision`: from memory, else derived from a parent's, else
 * stored, else built (once). With `use: 'present'` an index taken over by a child
 * revision's is enough (it presents ranked lists made before; it cannot rank).
 */
export function revisionSearchIndex(ctx: ContentContext, revision: RevisionDoc, use: 'rank' | 'present' = 'rank'): Promise<SearchIndex> {
  const cached = ctx.caches.searchIndexes.get(revision._id);
  if (cached && (cached.engine || use === 'present')) return Promise.resolve(cached);
  return ctx.caches.searchIndexes.shared(revision._id, () => obtain(ctx, revision));
}

/**
 * Makes and stores the index of a new revision ahead of its first search, only when its
 * space is searched (a parent revision has an index): spaces nobody searches cost nothing.
 * Returns whether it did.
 */
export async function warmRevisionIndex(ctx: ContentContext, revision: RevisionDoc): Promise<boolean> {
  const cache = ctx.caches.searchIndexes;
  // Already made here, or stored by another replica (searches load it there).
  if (cache.get(revision._id) || cache.loading(revision._id) || (await readIndexHead(ctx.models, revision._id))) return false;
  let searched = false;
  for (const parent of revision.parents) {
    searched = cache.loading(parent) !== undefined || cache.get(parent) !== undefined || (await readIndexHead(ctx.models, parent)) !== null;
    if (searched) break;
  }
  if (!searched) return false;
  const index = await revisionSearchIndex(ctx, revision);
  await index.storing;
  return true;
}
