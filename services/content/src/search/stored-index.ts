import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import MiniSearch, { type AsPlainObject } from 'minisearch';
import type { ContentContext } from '../kernel';
import type { RevisionDoc } from '../revisions';
import {
  applyChanges,
  PAGE_OPTIONS,
  phases,
  SECTION_OPTIONS,
  sourceOf,
  tooMany,
  type IndexedSection,
  type PriorPage,
  type SearchEngine,
  type SearchIndex,
  type StoredForm,
} from './search-engine';
import { deleteIndexData, readIndexData, readIndexHead, storeIndexData } from './search-store';

/* The stored forms of a revision's index: a snapshot (everything) or a delta (re-cut pages) on a snapshot. */

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
export async function loadStored(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex | null> {
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
export async function storeIndex(ctx: ContentContext, revision: RevisionDoc, index: SearchIndex): Promise<void> {
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
