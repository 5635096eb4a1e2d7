import { performance } from 'node:perf_hooks';
import MiniSearch, { type Options } from 'minisearch';
import type { ContentContext } from '../kernel';
import { loadBodies, pagePaths, type RevisionDoc, type RevisionPageDoc } from '../revisions';
import { markdownSections, normalizeTerm, words } from './search-sections';

/*
 * Making the index of one revision in memory: its pages and sections, and the two MiniSearch
 * indexes over them, built from nothing or changed from a prior index's (search-index.ts
 * decides which; stored-index.ts stores and loads them).
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
  /** What the sections were cut from: the body hash, GENERATED for a computed page, NOT_INDEXED for a page left out (noIndex). */
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
export interface StoredForm {
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
  /** Its store in the background, while under way: a child waits for it before taking its engine. */
  storing?: Promise<void>;
}

/** Page id and section ordinal of a section document id (`<page id>:<k>`). */
export function sectionRef(id: string): { pageId: string; ordinal: number } {
  const cut = id.lastIndexOf(':');
  return { pageId: id.slice(0, cut), ordinal: Number(id.slice(cut + 1)) };
}

export const PAGE_OPTIONS: Options = { fields: ['title', 'description'], tokenize: words, processTerm: normalizeTerm };
export const SECTION_OPTIONS: Options = { fields: ['heading', 'text'], tokenize: words, processTerm: normalizeTerm };

/** Past this share of changed pages, making the index afresh costs about as much as changing it. */
const MAX_CHANGED_FRACTION = 0.3;
export const tooMany = (changed: number, pages: number) => changed > MAX_CHANGED_FRACTION * Math.max(1, pages);

// A computed page's generated body is not stored markdown: only its title and description are searchable.
const GENERATED = 'generated';
/**
 * A page with `noIndex` is left out of the index altogether: neither its title and
 * description (page document) nor its sections are in the MiniSearch indexes, so it is
 * never found and its words weigh nothing in the scores of the others (BM25 counts every
 * indexed document). It keeps its entry in `pages` (its title is its children's ancestor).
 * The flag is part of the page's source: flipping it changes the source, so every
 * incremental path (changesFrom, applyChanges, a stored delta's check) sees the page as
 * changed, re-cuts it (no sections when left out, its body's otherwise) and adds or removes
 * its page document, exactly as a build of the new revision would have it. (Filtering at
 * ranking time instead would keep its words in the BM25 statistics of every other page.)
 * The stored layout is unchanged (FORMAT stays): a source is an opaque string compared with
 * sourceOf, and indexes stored before the flag existed hold no noIndex page, so their
 * sources are what sourceOf says of their revisions.
 */
const NOT_INDEXED = 'not-indexed';
export const sourceOf = (page: RevisionPageDoc) => (page.noIndex ? NOT_INDEXED : page.computed ? GENERATED : page.bodyHash);
/** Whether an indexed page (of this revision or a prior index) has documents in the MiniSearch indexes. */
const indexed = (page: Pick<IndexedPage, 'source'>) => page.source !== NOT_INDEXED;

export type PriorPage = Pick<IndexedPage, 'id' | 'title' | 'description' | 'source' | 'sections'>;

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
export function changesFrom(prior: ReadonlyMap<string, Pick<PriorPage, 'title' | 'description' | 'source'>>, revision: RevisionDoc) {
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
export async function cutSections(ctx: ContentContext, pages: RevisionPageDoc[]): Promise<Map<string, IndexedSection[]>> {
  const cut = (page: RevisionPageDoc) => sourceOf(page) === page.bodyHash;
  const bodies = await loadBodies(ctx, pages.filter(cut));
  const out = new Map<string, IndexedSection[]>();
  for (const [n, page] of pages.entries()) {
    if (n > 0 && n % PAGES_PER_SLICE === 0) await yieldToEventLoop();
    out.set(page.id, cut(page) ? markdownSections(bodies.get(page.bodyHash) ?? '') : []);
  }
  return out;
}

interface AverageInternals {
  _fieldLength: Map<number, unknown>;
  _avgFieldLength: unknown;
  _documentCount: unknown;
}

/** MiniSearch's internals that settleAverages rewrites, or null when they are not where it expects them. */
export function averageInternals(search: MiniSearch): AverageInternals | null {
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
export async function applyChanges(
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
    if (!kept && indexed(old)) pageSearch.remove(pageDocument(old));
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
    const source = sourceOf(page);
    const had = old !== undefined && indexed(old);
    const has = indexed({ source });
    const retitled = !old || old.title !== entry.title || old.description !== entry.description;
    if (had && (!has || retitled)) {
      pageSearch.remove(pageDocument(old));
      edits++;
    }
    if (has && (!had || retitled)) {
      pageSearch.add(pageDocument(entry));
      edits++;
    }
    let sections = recut.get(page.id);
    if (sections) {
      sections.forEach((section, ordinal) => sectionSearch.add(sectionDocument(page.id, ordinal, section)));
      edits += sections.length;
      await step();
    } else if (old && old.source === source) {
      sections = old.sections;
    } else {
      throw new Error(`search index: no sections of page ${page.id} for its body`);
    }
    textChars += entry.title.length + entry.description.length;
    for (const section of sections) textChars += section.heading.length + section.text.length;
    const parent = page.parent ? (position.get(page.parent) ?? -1) : -1;
    pages.push({ ...entry, path: paths.get(page.id) ?? page.slug, parent, source, sections });
  }
  // A full build may keep MiniSearch's own means; a changed index may not (it would score off a build).
  const settled = settleAverages(pageSearch) && settleAverages(sectionSearch);
  if (!settled && prior.size > 0 && edits > 0)
    throw new Error('search index: MiniSearch internals not as expected; a changed index would not score like a built one');
  return { pages, position, textChars };
}

const newEngine = (): SearchEngine => ({ pageSearch: new MiniSearch(PAGE_OPTIONS), sectionSearch: new MiniSearch(SECTION_OPTIONS) });

/** The index of `revision`, made from nothing. */
export async function buildIndex(ctx: ContentContext, revision: RevisionDoc): Promise<SearchIndex> {
  const timer = phases();
  const recut = await cutSections(ctx, revision.pages);
  timer.lap('cut');
  const engine = newEngine();
  const made = await applyChanges(engine, new Map(), revision, recut);
  timer.lap('index');
  ctx.logger.info({ revisionId: revision._id, pages: made.pages.length, ms: timer.laps }, 'search index built');
  return { revisionId: revision._id, ...made, engine };
}

/** Milliseconds per named phase, for the log. */
export function phases() {
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
