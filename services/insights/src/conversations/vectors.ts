import bm25Vectorizer, { type BM25Vectorizer } from 'wink-nlp/utilities/bm25-vectorizer';
import similarity from 'wink-nlp/utilities/similarity';
import type { Bow } from 'wink-nlp';

/*
 * Term weighting for clustering: BM25 (winkNLP's vectorizer) over an organization's issues,
 * kept incrementally. winkNLP learns its statistics from a batch of documents; here they are
 * the organization's running totals (issues seen, their total length, the document frequency
 * of each term), which a new issue updates in O(its terms). The vectorizer is given them as a
 * model (its `loadModel`) and weighs the issue's terms (`bowOf`), L2-normalized; likeness is
 * winkNLP's cosine of two bags of words.
 */

/** An organization's term statistics over its issues. */
export interface TermStats {
  /** Issues counted. */
  docs: number;
  /** Sum of their lengths (terms). */
  totalLength: number;
  /** Issues containing each term. */
  df: Map<string, number>;
}

/**
 * Issues assumed on top of those counted, as if the organization's statistics started from a
 * background of unrelated issues: with a handful of issues, a term two of them share would
 * otherwise weigh almost nothing (it is "in every document"), and the first issues about one
 * problem would never look alike. Once an organization has many issues the prior fades.
 */
export const PRIOR_DOCS = 20;

/** BM25 parameters (winkNLP's defaults), L2-normalized vectors. */
const BM25 = { k: 1, k1: 1.2, b: 0.75, norm: 'l2' as const };
const MODEL_UID = 'WinkNLP-BM25Vectorizer-Model/1.0.0';

export function emptyStats(): TermStats {
  return { docs: 0, totalLength: 0, df: new Map() };
}

/** Counts an issue's terms in (sign 1) or out of (sign -1) the statistics. */
export function countIssue(stats: TermStats, terms: readonly string[], sign: 1 | -1): void {
  stats.docs = Math.max(0, stats.docs + sign);
  stats.totalLength = Math.max(0, stats.totalLength + sign * terms.length);
  for (const term of new Set(terms)) {
    const count = (stats.df.get(term) ?? 0) + sign;
    if (count > 0) stats.df.set(term, count);
    else stats.df.delete(term);
  }
}

/**
 * The inverse document frequency of a term as winkNLP's BM25 vectorizer computes it for the
 * documents it learned (ln((N − df + 0.5) / (df + 0.5) + k)), from the running totals and the
 * prior.
 */
export function idfOf(stats: TermStats, term: string): number {
  const df = stats.df.get(term) ?? 0;
  const n = Math.max(stats.docs, df) + PRIOR_DOCS;
  return Math.log((n - df + 0.5) / (df + 0.5) + BM25.k);
}

/** winkNLP's BM25 vectorizer primed with the statistics, for the given terms. */
function vectorizerFor(stats: TermStats, terms: Iterable<string>): BM25Vectorizer {
  const idf: Record<string, number> = {};
  for (const term of terms) idf[term] = idfOf(stats, term);
  const vectorizer = bm25Vectorizer(BM25);
  const docs = Math.max(stats.docs, 1);
  vectorizer.loadModel(JSON.stringify({ uid: MODEL_UID, docId: docs, tf: [], idf, terms: [], sumOfAllDLs: Math.max(stats.totalLength, docs) }));
  return vectorizer;
}

/** The BM25 vector of an issue's terms (L2-normalized bag of words). */
export function issueVector(stats: TermStats, terms: readonly string[]): Bow {
  if (terms.length === 0) return {};
  const vectorizer = vectorizerFor(stats, terms) as BM25Vectorizer & { bowOf(tokens: string[], processOOV: boolean): Bow };
  return vectorizer.bowOf([...terms], true);
}

/** A term and a count (how terms are stored: keys may hold any character). */
export interface TermCount {
  k: string;
  v: number;
}

/**
 * The centroid of a cluster as a bag of words: each term weighs its IDF times the share of the
 * cluster's issues that contain it.
 */
export function centroidVector(stats: TermStats, terms: readonly TermCount[], issues: number): Bow {
  const bow: Bow = {};
  if (issues <= 0) return bow;
  for (const { k, v } of terms) bow[k] = (idfOf(stats, k) * v) / issues;
  return bow;
}

/** How alike two bags of words are (winkNLP's cosine, 0..1 for weights ≥ 0). */
export function likeness(a: Bow, b: Bow): number {
  if (Object.keys(a).length === 0 || Object.keys(b).length === 0) return 0;
  return similarity.bow.cosine(a, b);
}

/** A dense vector in winkNLP's form: its values, then its L2 norm as the last element. */
function withNorm(vector: readonly number[]): number[] {
  return [...vector, Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0))];
}

/** How alike two dense vectors (embeddings) are: winkNLP's cosine (0 when either is all zeros). */
export function vectorLikeness(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || a.length !== b.length) return 0;
  const [x, y] = [withNorm(a), withNorm(b)];
  if (x[a.length] === 0 || y[b.length] === 0) return 0;
  return similarity.vector.cosine(x, y);
}

/**
 * The cluster's most distinctive terms, best first: those most of its issues share and few
 * other issues use (IDF × share of the cluster's issues containing it).
 */
export function distinctiveTerms(stats: TermStats, counts: ReadonlyMap<string, number>, issues: number, n: number): TermCount[] {
  const weighted = [...counts].map(([k, v]) => ({ k, v, w: (idfOf(stats, k) * v) / Math.max(issues, 1) }));
  weighted.sort((a, b) => b.w - a.w || b.v - a.v || (a.k < b.k ? -1 : 1));
  return weighted.slice(0, n).map(({ k, v }) => ({ k, v }));
}
