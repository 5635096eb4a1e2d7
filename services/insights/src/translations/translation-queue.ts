import { queuePerInstance } from '@quire/async';
import type { InsightsContext } from '../kernel';
import { processRunJob, type RunJob } from './translation-run';
import { unfinishedTranslations } from './translation-store';

/*
 * Translation runs as BullMQ jobs ('translation-runs'), fair between organizations: one
 * organization's many runs wait behind another's one, and at most
 * TRANSLATION_RUNS_ACTIVE_PER_ORGANIZATION of them are under way at once (runs are long: without
 * a cap one organization would hold every worker). Runs are not refused: a queued run costs a
 * small job, and only its own organization waits longer. A job found busy (another run of the
 * same translation holds its lock) is queued again a little later, so runs asked meanwhile run
 * after. When the worker starts, translations whose runs were asked and not started, or left
 * running by a worker that died, are queued again (the queue may have lost them with Redis).
 */

/** How long a job found busy waits before it tries again. */
const BUSY_DELAY_MS = 1_000;

/** The run queue of each service instance. A run records its own failures; a job fails only when the platform did (datastore down): tried again then. */
const runQueue = queuePerInstance<RunJob, void>(
  'translation-runs',
  { attempts: 3, backoff: { type: 'exponential', delay: 2_000 } },
  { tenantOf: (job) => job.organizationId },
);
const runQueueOf = (ctx: InsightsContext) => runQueue.of(ctx);

/** Queues run number `job.run` of the translation (`tag` makes the job id unique when a job may already hold the plain one). */
export async function enqueueRun(ctx: InsightsContext, job: RunJob, options: { tag?: string; delayMs?: number } = {}): Promise<void> {
  const { translationId, run, organizationId } = job;
  const jobId = [translationId, run, options.tag].filter(Boolean).join('-');
  await runQueueOf(ctx).add({ translationId, run, organizationId }, { jobId, ...(options.delayMs ? { delay: options.delayMs } : {}) });
}

async function requeueUnfinished(ctx: InsightsContext): Promise<void> {
  const rows = await unfinishedTranslations(ctx);
  for (const row of rows) {
    if (row.runsRequested > row.runsCovered || row.status === 'running')
      await enqueueRun(ctx, { translationId: row._id, run: row.runsRequested, organizationId: row.organizationId }, { tag: `sweep${Date.now()}` });
  }
}

/** Starts running translations in this process; what it returns stops the worker. */
export async function startRunWorker(ctx: InsightsContext): Promise<() => Promise<void>> {
  const queue = runQueueOf(ctx);
  queue.work(
    async (job) => {
      const outcome = await processRunJob(ctx, job.data);
      if (outcome === 'busy') await enqueueRun(ctx, job.data, { tag: `later${Date.now()}`, delayMs: BUSY_DELAY_MS });
    },
    { concurrency: ctx.config.TRANSLATION_RUN_CONCURRENCY, maxActivePerTenant: ctx.config.TRANSLATION_RUNS_ACTIVE_PER_ORGANIZATION },
  );
  try {
    await requeueUnfinished(ctx);
  } catch (error) {
    ctx.logger.warn({ err: error }, 'could not queue unfinished translation runs again');
  }
  return () => runQueue.close(ctx);
}
