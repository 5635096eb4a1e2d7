import { keysetPage, type KeysetPage } from '@quire/http';
import { newId, withRedisLock } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { EMPTY_STATS, type TranslatedPage, type TranslationDoc, type TranslationStats, type TranslationStatus } from './translation-model';

/*
 * Reads and writes of translations. Every update goes through the model (the runtime
 * serializes updates per document on FerretDB). Deleting and finishing a run hold the same
 * short lock, so a run that ends after its translation was deleted finds nothing to write.
 */

const lockKey = (id: string) => `translation:${id}`;
/** What reads that present or check a translation leave out: the runs' page list. */
const WITHOUT_PAGES = { pages: 0 } as const;
const LOCK = { ttlMs: 10_000, waitMs: 5_000 };

export interface NewTranslation {
  organizationId: string;
  sourceSpaceId: string;
  sourceLanguage: string;
  language: string;
  instructions: string;
  createdBy: string;
}

export async function insertTranslation(ctx: InsightsContext, input: NewTranslation): Promise<TranslationDoc> {
  const now = new Date();
  const doc: TranslationDoc = {
    _id: newId(),
    ...input,
    status: 'pending',
    failureReason: null,
    targetSpaceId: null,
    targetRevisionId: null,
    runsRequested: 0,
    runsCovered: 0,
    runBy: input.createdBy,
    pages: [],
    stats: { ...EMPTY_STATS },
    runStartedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.models.Translation.create(doc);
  return doc;
}

/** A translation of the organization (without its page list), or null. */
export function findTranslation(ctx: InsightsContext, organizationId: string, id: string): Promise<TranslationDoc | null> {
  return ctx.models.Translation.findOne({ _id: id, organizationId }, WITHOUT_PAGES).lean<TranslationDoc>();
}

/** A translation with the page list its runs keep, or null. */
export function findTranslationForRun(ctx: InsightsContext, id: string): Promise<TranslationDoc | null> {
  return ctx.models.Translation.findById(id).lean<TranslationDoc>();
}

/** One page of the organization's translations, newest first. */
export function pageOfTranslations(ctx: InsightsContext, organizationId: string, query: { limit: number; page?: string }): Promise<KeysetPage<TranslationDoc>> {
  return keysetPage(ctx.models.Translation, { filter: { organizationId }, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
}

/** Every translation of the organization, newest first (for callers who see only some of them). */
export function allTranslations(ctx: InsightsContext, organizationId: string): Promise<TranslationDoc[]> {
  return ctx.models.Translation.find({ organizationId }, WITHOUT_PAGES).sort({ createdAt: -1, _id: -1 }).lean<TranslationDoc[]>();
}

/** The translation with its new instructions; null when it is gone. */
export function setInstructions(ctx: InsightsContext, organizationId: string, id: string, instructions: string): Promise<TranslationDoc | null> {
  return ctx.models.Translation.findOneAndUpdate(
    { _id: id, organizationId },
    { $set: { instructions, updatedAt: new Date() } },
    { returnDocument: 'after' },
  ).lean<TranslationDoc>();
}

export async function removeTranslation(ctx: InsightsContext, organizationId: string, id: string): Promise<void> {
  await withRedisLock(ctx.redis, lockKey(id), () => ctx.models.Translation.deleteOne({ _id: id, organizationId }), { ...LOCK, logger: ctx.logger });
}

/**
 * Records one more run asked by `userId`: its number, or null when the translation is gone.
 * A translation at rest becomes pending; a running one stays running (its run, once done,
 * leaves it pending for this one).
 */
export async function requestRun(ctx: InsightsContext, organizationId: string, id: string, userId: string): Promise<number | null> {
  const now = new Date();
  const doc = await ctx.models.Translation.findOneAndUpdate(
    { _id: id, organizationId },
    { $inc: { runsRequested: 1 }, $set: { runBy: userId, updatedAt: now } },
    { returnDocument: 'after' },
  ).lean<TranslationDoc>();
  if (!doc) return null;
  if (doc.status !== 'running' && doc.status !== 'pending')
    await ctx.models.Translation.updateOne({ _id: id, status: doc.status }, { $set: { status: 'pending' } });
  return doc.runsRequested;
}

/** Marks the run started, covering every run asked so far; false when the translation is gone. */
export async function markRunning(ctx: InsightsContext, doc: TranslationDoc): Promise<boolean> {
  const now = new Date();
  const result = await ctx.models.Translation.updateOne(
    { _id: doc._id },
    { $set: { status: 'running', runsCovered: doc.runsRequested, runStartedAt: now, failureReason: null, updatedAt: now } },
  );
  return result.matchedCount > 0;
}

/** Remembers the target space as soon as it exists (a run that fails later still knows it). */
export async function recordTargetSpace(ctx: InsightsContext, id: string, targetSpaceId: string): Promise<void> {
  await ctx.models.Translation.updateOne({ _id: id }, { $set: { targetSpaceId } });
}

/** How a run ended. */
export type RunOutcome =
  | { ok: true; targetSpaceId: string; targetRevisionId: string; pages: TranslatedPage[]; stats: TranslationStats }
  | { ok: false; reason: string; stats: TranslationStats };

/**
 * Records the run's outcome, unless the translation was deleted meanwhile. The status is the
 * outcome's, or pending when another run was asked while this one ran (`covered` is the number
 * of runs this one covered).
 */
export async function finishRun(ctx: InsightsContext, id: string, covered: number, outcome: RunOutcome): Promise<void> {
  const fields: Partial<TranslationDoc> = outcome.ok
    ? { targetSpaceId: outcome.targetSpaceId, targetRevisionId: outcome.targetRevisionId, pages: outcome.pages, stats: outcome.stats, failureReason: null }
    : { stats: outcome.stats, failureReason: outcome.reason };
  const status: TranslationStatus = outcome.ok ? 'completed' : 'failed';
  await withRedisLock(
    ctx.redis,
    lockKey(id),
    async () => {
      const updatedAt = new Date();
      const done = await ctx.models.Translation.updateOne({ _id: id, runsRequested: covered }, { $set: { ...fields, status, updatedAt } });
      if (done.matchedCount === 0) await ctx.models.Translation.updateOne({ _id: id }, { $set: { ...fields, status: 'pending', updatedAt } });
    },
    { ...LOCK, logger: ctx.logger },
  );
}

/** Translations whose runs may have been lost with the queue: asked and not started, or left running. */
export function unfinishedTranslations(
  ctx: InsightsContext,
): Promise<Array<Pick<TranslationDoc, '_id' | 'organizationId' | 'runsRequested' | 'runsCovered' | 'status'>>> {
  return ctx.models.Translation.find(
    { status: { $in: ['pending', 'running'] } },
    { _id: 1, organizationId: 1, runsRequested: 1, runsCovered: 1, status: 1 },
  ).lean();
}
