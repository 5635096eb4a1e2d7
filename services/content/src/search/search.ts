import type { SearchOptions } from 'minisearch';
import { HttpError, httpError } from '@quire/http';
import { declareCache, type LruCache } from '@quire/runtime';
import type { ContentContext } from '../kernel';
import { loadRevision, type RevisionDoc } from '../revisions';
import { sectionRef, type IndexedPage, type IndexedSection, type SearchEngine, type SearchIndex } from './search-engine';
import { revisionSearchIndex } from './search-index';
import { excerptAround, normalizeTerm, words } from './search-sections';

/*
 * Full-text search of a revision (spec "Space content" search, "Search result item"):
 * BM25 ranking by MiniSearch over two indexes (page titles and descriptions; sections cut
 * at headings), typo tolerant, prefix matching on the last term, titles weighted over
 * headings over text. Results are pages, each with its best matching sections.
 */

export type ResultType = 'page' | 'section';

/** A page's rank in one revision: positions in the revision, the same whichever way its index was made. */
export interface RankedPage {
  /** Position of the page in the revision's pages. */
  page: number;
  score: number;
  /** 'page' when the page matched on its title or description. */
  resultType: ResultType;
  /** The best matching sections (at most MAX_SECTIONS_PER_PAGE) by their ordinal in the page, best first, with the index terms they matched. */
  sections: Array<{ section: number; score: number; terms: string[] }>;
}

export interface SectionHit {
  section: IndexedSection;
  score: number;
  resultType: ResultType;
  /** Plain-text excerpt around the match. */
  body: string;
}

/** A section's title as results show it: the page's title for the text before its first heading. */
export const sectionTitle = (hit: PageHit, section: IndexedSection): string => (section.anchor === null ? hit.page.title : section.heading);

export interface PageHit {
  page: IndexedPage;
  /** Titles of the page's ancestors, top-level first. */
  ancestors: string[];
  score: number;
  resultType: ResultType;
  sections: SectionHit[];
}

const MATCHING: SearchOptions = {
  combineWith: 'OR',
  // Only the last term is taken as a prefix: it is the one still being typed.
  prefix: (_term, index, terms) => index === terms.length - 1,
  // About one typo per five letters; short words must match exactly (fuzzy short words match everything).
  fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
  // At most two typos a word: the cost of a fuzzy lookup grows steeply with the distance
  // (MiniSearch allows 6 by default: a query of long words then holds the process for seconds).
  maxFuzzy: 2,
};
const PAGE_BOOST = { title: 3, description: 1.5 };
const SECTION_BOOST = { heading: 2, text: 1 };

/** Sections shown per page: the best ones (a long page could match in hundreds). */
const MAX_SECTIONS_PER_PAGE = 5;

/**
 * Scoring costs grow with the pages each term matches: a long query of common words
 * could hold the process for seconds. Terms past this many distinct ones are ignored.
 */
const MAX_QUERY_TERMS = 16;

/** The distinct normalized terms of a query, at most MAX_QUERY_TERMS, in query order. */
export function queryTerms(query: string): string[] {
  return [...new Set(words(query).map(normalizeTerm))].slice(0, MAX_QUERY_TERMS);
}

/**
 * Every matching page of the index, best first; ties keep the revision's page order, and
 * a page's sections tied on score keep their order in the page (so the ranking does not
 * depend on the order documents entered the index).
 */
export function rankPages(index: SearchIndex, engine: SearchEngine, terms: readonly string[]): RankedPage[] {
  if (terms.length === 0) return [];
  const query = terms.join(' ');
  const ranked = new Map<number, RankedPage>();
  const entry = (page: number): RankedPage => {
    let found = ranked.get(page);
    if (!found) {
      found = { page, score: 0, resultType: 'section', sections: [] };
      ranked.set(page, found);
    }
    return found;
  };
  for (const result of engine.pageSearch.search(query, { ...MATCHING, boost: PAGE_BOOST })) {
    const position = index.position.get(result.id as string);
    if (position === undefined) continue;
    const page = entry(position);
    page.score += result.score;
    page.resultType = 'page';
  }
  for (const result of engine.sectionSearch.search(query, { ...MATCHING, boost: SECTION_BOOST })) {
    const { pageId, ordinal } = sectionRef(result.id as string);
    const position = index.position.get(pageId);
    if (position === undefined) continue;
    keepBest(entry(position).sections, { section: ordinal, score: result.score, terms: result.terms });
  }
  // A page counts its best section only: many weak sections must not outrank one strong match.
  for (const page of ranked.values()) if (page.sections.length > 0) page.score += page.sections[0].score;
  return [...ranked.values()].sort((a, b) => b.score - a.score || a.page - b.page);
}

type SectionRank = RankedPage['sections'][number];
const better = (a: SectionRank, b: SectionRank) => a.score > b.score || (a.score === b.score && a.section < b.section);

/** Inserts `hit` into `kept` (best first, at most MAX_SECTIONS_PER_PAGE) unless it ranks below all of them. */
function keepBest(kept: SectionRank[], hit: SectionRank): void {
  if (kept.length === MAX_SECTIONS_PER_PAGE && !better(hit, kept[kept.length - 1])) return;
  let at = Math.min(kept.length, MAX_SECTIONS_PER_PAGE - 1);
  while (at > 0 && better(hit, kept[at - 1])) {
    kept[at] = kept[at - 1];
    at--;
  }
  kept[at] = hit;
}

/** Titles from the top-level page down to the direct parent of `page`. */
function ancestorsOf(index: SearchIndex, page: IndexedPage): string[] {
  const titles: string[] = [];
  for (let parent = page.parent; parent >= 0 && titles.length < index.pages.length; parent = index.pages[parent].parent) {
    titles.unshift(index.pages[parent].title);
  }
  return titles;
}

/** A ranked page with its sections and excerpts, ready to present. */
export function describeHit(index: SearchIndex, ranked: RankedPage): PageHit {
  const page = index.pages[ranked.page];
  const sections: SectionHit[] = ranked.sections.map((hit) => {
    const section = page.sections[hit.section];
    return { section, score: hit.score, resultType: 'section', body: excerptAround(section.text, new Set(hit.terms)) };
  });
  // A page found by its title alone shows its opening section (GitBook: "an arbitrary section").
  if (sections.length === 0 && page.sections.length > 0) {
    const section = page.sections[0];
    sections.push({ section, score: 0, resultType: 'page', body: excerptAround(section.text, new Set()) });
  }
  return { page, ancestors: ancestorsOf(index, page), score: ranked.score, resultType: ranked.resultType, sections };
}

/** Heap of one ranked page or one of its kept sections, estimated. */
const RANKED_HEAP_BYTES = 100;

/**
 * The ranked lists of recent queries (ctx.caches.searchRankings), so that following `next.page`
 * does not search again; weighed by matched pages and kept sections (a query matching all of
 * 10,000 pages weighs up to 60,000 of them, 6 MB).
 */
export const searchRankingCaches = { searchRankings: declareCache<RankedPage[]>(30) };

declare module '../kernel' {
  interface ContentCaches {
    searchRankings: LruCache<RankedPage[]>;
  }
}

/** One slice of the ranked pages of `revision` for `query`, and how many match in all. */
export async function searchRevision(
  ctx: ContentContext,
  revision: RevisionDoc,
  query: string,
  slice: { offset: number; limit: number },
): Promise<{ hits: PageHit[]; count: number }> {
  const terms = queryTerms(query);
  const key = `${revision._id}\n${terms.join(' ')}`;
  let index = await revisionSearchIndex(ctx, revision, 'present');
  let ranked = ctx.caches.searchRankings.get(key);
  if (!ranked) {
    // An index taken over by a newer revision's presents the lists made before; ranking anew needs a searchable one.
    while (!index.engine) index = await revisionSearchIndex(ctx, revision, 'rank');
    ranked = rankPages(index, index.engine, terms);
    ctx.caches.searchRankings.set(key, ranked, ranked.reduce((weight, page) => weight + 1 + page.sections.length, 1) * RANKED_HEAP_BYTES);
  }
  return { hits: ranked.slice(slice.offset, slice.offset + slice.limit).map((hit) => describeHit(index, hit)), count: ranked.length };
}

/** The space's current revision, or the one a list cursor continues in (it must be one of this space's: a 400 otherwise). */
export async function searchedRevision(ctx: ContentContext, space: { _id: string; revisionId: string }, cursor?: { revisionId: string }): Promise<RevisionDoc> {
  if (!cursor) return loadRevision(ctx, space.revisionId);
  const revision = await loadRevision(ctx, cursor.revisionId).catch((error: unknown) => {
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  });
  if (!revision || revision.spaceId !== space._id) throw httpError.badRequest('Invalid query: page: not a cursor of this list');
  return revision;
}
