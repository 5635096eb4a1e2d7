import { Schema, type Model } from 'mongoose';
import { document } from '@quire/contract';
import { storedJson } from '@quire/runtime';

/*
 * A translation of a space, and what its runs remember. The instructions document is stored as
 * JSON text (its `data` may hold any key, `$` and `.` included: design.md §5). What the runs need
 * to be incremental is one list on the document itself: for each source page translated, the
 * hash of the source it was translated from — so the run that ends writes its outcome, its
 * stats and that list in one update, and a translation deleted meanwhile stays deleted.
 */

export const TRANSLATION_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type TranslationStatus = (typeof TRANSLATION_STATUSES)[number];

/** A source page as the latest successful run translated it. */
export interface TranslatedPage {
  /** The source page id (the target page has the same id). */
  id: string;
  /** sourceHash() of the page's title, description and body when it was translated. */
  hash: string;
}

/** Durations in milliseconds (presented in seconds). */
export interface TranslationStats {
  runs: number;
  totalWords: number;
  totalPages: number;
  totalDurationMs: number;
  latestRunDurationMs: number;
  latestPages: number;
  latestWords: number;
}

export interface TranslationDoc {
  _id: string;
  organizationId: string;
  sourceSpaceId: string;
  sourceLanguage: string;
  language: string;
  /** JSON text of the rich-text document. */
  instructions: string;
  status: TranslationStatus;
  /** Why the latest run failed (status failed), in words safe to show: no secrets. */
  failureReason: string | null;
  /** The target space, once a run made it, and the revision the latest successful run wrote or found. */
  targetSpaceId: string | null;
  targetRevisionId: string | null;
  /** Runs asked (POST …/run, +1 each) and the number the latest started run covers: a job whose number is covered has nothing to do. */
  runsRequested: number;
  runsCovered: number;
  /** Who asked the latest run: the author of the revisions it writes. */
  runBy: string;
  createdBy: string;
  pages: TranslatedPage[];
  stats: TranslationStats;
  runStartedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The instructions (`TranslationDoc.instructions`), read and written only through this. */
export const instructionsJson = storedJson('Translation.instructions', document);

export const EMPTY_STATS: TranslationStats = {
  runs: 0,
  totalWords: 0,
  totalPages: 0,
  totalDurationMs: 0,
  latestRunDurationMs: 0,
  latestPages: 0,
  latestWords: 0,
};

const statsSchema = new Schema<TranslationStats>(
  {
    runs: { type: Number, default: 0 },
    totalWords: { type: Number, default: 0 },
    totalPages: { type: Number, default: 0 },
    totalDurationMs: { type: Number, default: 0 },
    latestRunDurationMs: { type: Number, default: 0 },
    latestPages: { type: Number, default: 0 },
    latestWords: { type: Number, default: 0 },
  },
  { _id: false },
);

const translationSchema = new Schema<TranslationDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    sourceSpaceId: { type: String, required: true },
    sourceLanguage: { type: String, required: true },
    language: { type: String, required: true },
    instructions: { type: String, required: true },
    status: { type: String, required: true },
    failureReason: { type: String, default: null },
    targetSpaceId: { type: String, default: null },
    targetRevisionId: { type: String, default: null },
    runsRequested: { type: Number, default: 0 },
    runsCovered: { type: Number, default: 0 },
    runBy: { type: String, required: true },
    createdBy: { type: String, required: true },
    // Read only by runs: the other reads leave it out where they can (FerretDB refuses a projection on findAndModify).
    pages: { type: [{ _id: false, id: String, hash: String }], default: [] },
    stats: { type: statsSchema, default: () => ({ ...EMPTY_STATS }) },
    runStartedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The organization's list, newest first (keyset on createdAt, _id).
translationSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
// The sweep that queues again the runs a lost queue forgot.
translationSchema.index({ status: 1 });

export type TranslationModels = { Translation: Model<TranslationDoc> };

export const translationModelTable = { Translation: [translationSchema, 'translations'] as const };
