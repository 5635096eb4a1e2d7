import { queuePerInstance } from '@quire/async';
import { LockBusyError } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { processConversation } from './process';

/*
 * The processing queue (BullMQ): one job per ingestion (conversation and revision), retried
 * with backoff, fair between organizations (one organization's flood of conversations waits
 * behind another's few; CONVERSATION_PROCESSING_ACTIVE_PER_ORGANIZATION bounds how many of its
 * processings hold a worker at once, its clustering being one at a time anyway).
 * Conversations are written before their job is queued; those still waiting once their job is
 * gone (lost with Redis, never added, failed for good) are queued again when the worker starts
 * and every CONVERSATION_SWEEP_MS.
 */

interface ProcessingJob {
  key: string;
  revision: number;
  /** Absent in jobs queued before it was added: those share one turn. */
  organizationId?: string;
}

/** A conversation's revision to process, of its organization. */
export interface ProcessingRequest {
  key: string;
  revision: number;
  organizationId: string;
}

const ATTEMPTS = 6;
const BACKOFF_DELAY_MS = 500;
const SWEEP_BATCH = 500;

/** The processing queue of each service instance. */
const processingQueue = queuePerInstance<ProcessingJob, string>(
  'conversation-processing',
  { attempts: ATTEMPTS, backoff: { type: 'exponential', delay: BACKOFF_DELAY_MS }, removeOnComplete: { age: 3600, count: 10_000 } },
  { tenantOf: (job) => job.organizationId },
);
const processingQueueOf = (ctx: InsightsContext) => processingQueue.of(ctx);

/** Closes this instance's queue if it was opened without a worker (a service started without background work). */
export const closeProcessingQueue = (ctx: InsightsContext): Promise<void> => processingQueue.close(ctx);

const jobIdOf = (key: string, revision: number) => `${key}-r${revision}`;

/** Queues the processing of a conversation's revision (once: the queue ignores a job id it holds). */
export async function enqueueProcessing(ctx: InsightsContext, request: ProcessingRequest, jobId = jobIdOf(request.key, request.revision)): Promise<void> {
  const { key, revision, organizationId } = request;
  await processingQueueOf(ctx).add({ key, revision, organizationId }, { jobId });
}

/** Queues again the conversations waiting for longer than `minAgeMs` whose job is not waiting or running. */
export async function requeueWaitingConversations(ctx: InsightsContext, minAgeMs: number): Promise<number> {
  const queue = processingQueueOf(ctx);
  const rows = await ctx.models.Conversation.find(
    { pending: true, updatedAt: { $lte: new Date(Date.now() - minAgeMs) } },
    { _id: 1, revision: 1, organizationId: 1 },
  )
    .sort({ updatedAt: 1 })
    .limit(SWEEP_BATCH)
    .lean();
  let requeued = 0;
  for (const { _id: key, revision, organizationId } of rows) {
    const state = await queue.state(jobIdOf(key, revision));
    if (state && state.state !== 'completed' && state.state !== 'failed' && state.state !== 'unknown') continue;
    // A finished job keeps its id for a while: a new one needs an id of its own.
    await enqueueProcessing(ctx, { key, revision, organizationId }, state ? `${jobIdOf(key, revision)}-${Date.now()}` : undefined);
    requeued += 1;
  }
  return requeued;
}

/** Starts processing in this process; what it returns stops the worker and the sweep. */
export async function startProcessingWorker(ctx: InsightsContext): Promise<() => Promise<void>> {
  const queue = processingQueueOf(ctx);
  queue.work(
    async (job) =>
      processConversation(ctx, job.data.key, job.data.revision).catch((error) => {
        // Another job holds the organization's clustering for longer than a job waits: retried later.
        if (error instanceof LockBusyError) throw new Error("the organization's clustering is busy");
        throw error;
      }),
    { concurrency: ctx.config.CONVERSATION_PROCESSING_CONCURRENCY, maxActivePerTenant: ctx.config.CONVERSATION_PROCESSING_ACTIVE_PER_ORGANIZATION },
  );
  const sweep = async (minAgeMs: number) => {
    try {
      const requeued = await requeueWaitingConversations(ctx, minAgeMs);
      if (requeued) ctx.logger.info({ requeued }, 'queued waiting conversations again');
    } catch (error) {
      ctx.logger.warn({ err: (error as Error).message }, 'could not sweep waiting conversations');
    }
  };
  // A conversation waiting for less than two sweeps is left to its job.
  const minAgeMs = 2 * ctx.config.CONVERSATION_SWEEP_MS;
  await sweep(minAgeMs);
  const timer = setInterval(() => void sweep(minAgeMs), ctx.config.CONVERSATION_SWEEP_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await processingQueue.close(ctx);
  };
}
