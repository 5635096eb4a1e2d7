import { queuePerInstance } from '@quire/async';
import type { InsightsContext } from '../context';
import { processRunJob, type RunJob } from './translation-run';
import { unfinishedTranslations } from './translation-store';

/*
 * Translation runs as BullMQ jobs ('translation-runs'). A job found busy (another run of the same
 * translation holds its lock) is queued again a little later, so runs asked meanwhile run after.
 * When the worker starts, translations whose runs were asked and not started, or left running by a
 * worker that died, are queued again (the queue may have lost them with Redis).
 */

/** Runs at once per process (of different translations: one translation runs one at a time). */
const WORKER_CONCURRENCY = 2;
/** How long a job found busy waits before it tries again. */
const BUSY_DELAY_MS = 1_000;

/** The run queue of each service instance. A run records its own failures; a job fails only when the platform did (datastore down): tried again then. */
const runQueue = queuePerInstance<RunJob, void>('translation-runs', { attempts: 3, backoff: { type: 'exponential', delay: 2_000 } });
const runQueueOf = (ctx: InsightsContext) => runQueue.of(ctx);

/** Queues run number `run` of the translation (`tag` makes the job id unique when a job may already hold the plain one). */
export async function enqueueRun(ctx: InsightsContext, translationId: string, run: number, options: { tag?: string; delayMs?: number } = {}): Promise<void> {
  const jobId = [translationId, run, options.tag].filter(Boolean).join('-');
  await runQueueOf(ctx).add({ translationId, run }, { jobId, ...(options.delayMs ? { delay: options.delayMs } : {}) });
}

async function requeueUnfinished(ctx: InsightsContext): Promise<void> {
  const rows = await unfinishedTranslations(ctx);
  for (const row of rows) {
    if (row.runsRequested > row.runsCovered || row.status === 'running') await enqueueRun(ctx, row._id, row.runsRequested, { tag: `sweep${Date.now()}` });
  }
}

/** Starts running translations in this process; what it returns stops the worker. */
export async function startRunWorker(ctx: InsightsContext): Promise<() => Promise<void>> {
  const queue = runQueueOf(ctx);
  queue.work(
    async (job) => {
      const outcome = await processRunJob(ctx, job.data);
      if (outcome === 'busy') await enqueueRun(ctx, job.data.translationId, job.data.run, { tag: `later${Date.now()}`, delayMs: BUSY_DELAY_MS });
    },
    { concurrency: WORKER_CONCURRENCY },
  );
  try {
    await requeueUnfinished(ctx);
  } catch (error) {
    ctx.logger.warn({ err: error }, 'could not queue unfinished translation runs again');
  }
  return () => runQueue.close(ctx);
}
