import { EVENTS, queuePerInstance } from '@quire/async';
import { HttpError } from '@quire/http';
import { inSpan, withRedisLock } from '@quire/runtime';
import { announce, withLock, type ContentContext, type SpaceDoc } from '../kernel';
import type { GitOperationDoc, GitSyncDoc } from './git-store';
import { GitSyncError, OperationTimeoutError } from './errors';
import { runExport } from './export';
import { runImport } from './import';
import { PageFileError } from './markdown';
import type { GitJobData, OperationResult } from './operation';
import { openCredentials, scrubSecrets, type RemoteCredentials } from './remote';
import { pinRepositoryHost } from './repository-address';
import { GIT_FAILURES, GitCommandError, RepositoryTooLargeError, withGitSession } from './runner';
import { gitSettings } from './settings';
import { gitStateLock, loadGitSync, recordSync, setStage, updateOperation } from './state';

/*
 * Git imports and exports run as BullMQ jobs. Jobs of one space run one after the other:
 * in this process they are chained in arrival order, and across processes a Redis lock
 * held for the whole job serializes them. A job is never retried (a failure is recorded
 * on the operation, where the caller sees it) and is removed once it ended, so the sealed
 * credentials it carries do not stay in Redis.
 *
 * The queue is fair between organizations: an organization's jobs wait behind other
 * organizations' earlier turns, and at most GIT_JOBS_ACTIVE_PER_ORGANIZATION of them run at once
 * (a job may take minutes: without a cap one organization would hold every worker). Requests are
 * not refused for it: however many an organization queues, only its own jobs wait longer (the
 * gateway's rate limit bounds how fast anyone queues).
 */

type GitJobResult = { state: 'success' | 'failure' | 'timeout' | 'skipped' };

/** The Git job queue of each service instance. */
const gitJobs = queuePerInstance<GitJobData, GitJobResult>(
  'content-git-sync',
  { attempts: 1, removeOnComplete: true, removeOnFail: true },
  { tenantOf: (job) => job.organizationId },
);
const gitQueue = (ctx: ContentContext) => gitJobs.of(ctx);

export async function enqueueGitJob(ctx: ContentContext, data: GitJobData): Promise<void> {
  await gitQueue(ctx).add(data, { jobId: data.operationId });
}

const LOST_OPERATION = 'The operation was interrupted: the job running it stopped before it ended (for example the service restarted during it); run it again';

async function jobEnded(ctx: ContentContext, operationId: string): Promise<boolean> {
  const job = await gitQueue(ctx).state(operationId);
  return !job || job.state === 'completed' || job.state === 'failed';
}

/**
 * `state`, with a running operation whose job has left the queue recorded as failed: a
 * worker that died for good (past BullMQ's stall limit) or a lost job never records an
 * outcome, and the operation would show as running forever. Checked again under the
 * state lock: a request queues its job under it, and a job writes its outcome under it
 * before leaving the queue.
 */
export async function settleLostOperation(ctx: ContentContext, state: GitSyncDoc): Promise<GitSyncDoc> {
  const operation = state.operation;
  if (operation?.state !== 'running') return state;
  try {
    if (!(await jobEnded(ctx, operation.id))) return state;
    return await withLock(ctx, gitStateLock(state._id), async () => {
      const current = await loadGitSync(ctx, state._id);
      if (!current || current.operation?.id !== operation.id || current.operation.state !== 'running' || !(await jobEnded(ctx, operation.id)))
        return current ?? state;
      const now = new Date();
      const ended: GitOperationDoc = { ...current.operation, state: 'failure', error: LOST_OPERATION, endedAt: now, updatedAt: now };
      await ctx.models.GitSync.updateOne({ _id: state._id, 'operation.id': operation.id }, { $set: { operation: ended } });
      return { ...current, operation: ended };
    });
  } catch (error) {
    // Showing the recorded state beats failing the read: the check runs again on the next one.
    ctx.logger.warn({ err: (error as Error).message, spaceId: state._id }, 'could not check a running git operation');
    return state;
  }
}

/** Starts the Git import/export job worker; returns what stops it. */
export function startGitWorker(ctx: ContentContext): () => Promise<void> {
  const queue = gitQueue(ctx);
  const chains = new Map<string, Promise<unknown>>();
  queue.work(
    async (job) => {
      const { spaceId } = job.data;
      const run = (chains.get(spaceId) ?? Promise.resolve()).then(() => runSerialized(ctx, job.data));
      const settled = run.catch(() => undefined);
      chains.set(spaceId, settled);
      try {
        return await run;
      } finally {
        if (chains.get(spaceId) === settled) chains.delete(spaceId);
      }
    },
    { concurrency: gitSettings(ctx).GIT_WORKER_CONCURRENCY, maxActivePerTenant: gitSettings(ctx).GIT_JOBS_ACTIVE_PER_ORGANIZATION },
  );
  return () => gitJobs.close(ctx);
}

function runSerialized(ctx: ContentContext, job: GitJobData): Promise<GitJobResult> {
  const { GIT_OPERATION_TIMEOUT_MS: timeout } = gitSettings(ctx);
  // Outlives the job's own time bound, so it is only ever released by its holder.
  const hold = timeout + 60_000;
  // A span of the operation (its space, organization and direction; never the remote's address or credentials).
  const attributes = { 'quire.space.id': job.spaceId, 'quire.organization.id': job.organizationId ?? '', 'quire.git.direction': job.direction };
  const traced = () =>
    inSpan(`git ${job.direction}`, { attributes }, async (span) => {
      const result = await runJob(ctx, job);
      span.setAttribute('quire.git.outcome', result.state);
      return result;
    });
  return withRedisLock(ctx.redis, `content:git-job:${job.spaceId}`, traced, {
    ttlMs: hold,
    waitMs: hold,
    maxPauseMs: 1_000,
    logger: ctx.logger,
    onBusy: () => new GitSyncError('Another Git operation of this space is still running'),
  }).catch(async (error: unknown) => {
    await fail(ctx, job, error, null);
    return { state: 'failure' } as GitJobResult;
  });
}

async function fail(ctx: ContentContext, job: GitJobData, error: unknown, credentials: RemoteCredentials | null): Promise<GitJobResult['state']> {
  const timedOut = error instanceof OperationTimeoutError;
  const expected =
    timedOut || error instanceof GitSyncError || error instanceof GitCommandError || error instanceof RepositoryTooLargeError || error instanceof PageFileError;
  const known = expected || (error instanceof HttpError && error.status < 500);
  let message = known ? (error as Error).message : GIT_FAILURES.internal;
  if (error instanceof RepositoryTooLargeError) message = `The repository is too large: ${message}`;
  message = scrubSecrets(message, credentials);
  // git's own words and refused addresses stay in the log: git info shows only the generic reason.
  const detail = error instanceof GitCommandError || error instanceof GitSyncError ? error.detail : undefined;
  if (detail)
    ctx.logger.warn({ detail: scrubSecrets(detail, credentials), spaceId: job.spaceId, operation: job.operationId }, `git operation failed: ${message}`);
  if (!known)
    ctx.logger.error(
      { err: scrubSecrets(String((error as Error)?.stack ?? error), credentials), spaceId: job.spaceId, operation: job.operationId },
      'git operation failed',
    );
  const state = timedOut ? 'timeout' : 'failure';
  await updateOperation(ctx, job.spaceId, job.operationId, { state, error: message, endedAt: new Date() });
  return state;
}

async function runJob(ctx: ContentContext, job: GitJobData): Promise<GitJobResult> {
  const settings = gitSettings(ctx);
  const state = await loadGitSync(ctx, job.spaceId);
  // Git sync was removed from the space after this job was queued.
  if (!state) return { state: 'skipped' };
  if (job.timestamp && state.lastTimestamp && new Date(job.timestamp) < new Date(state.lastTimestamp)) {
    const error = `Skipped: this ${job.direction} was triggered at ${job.timestamp}, before the last applied operation (${new Date(state.lastTimestamp).toISOString()}); an older event never overwrites a newer one`;
    await updateOperation(ctx, job.spaceId, job.operationId, { state: 'failure', error, endedAt: new Date() });
    return { state: 'skipped' };
  }
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new OperationTimeoutError(`The operation did not finish within ${Math.round(settings.GIT_OPERATION_TIMEOUT_MS / 1000)} s`)),
    settings.GIT_OPERATION_TIMEOUT_MS,
  );
  let credentials: RemoteCredentials | null = null;
  const space = await ctx.models.Space.findById(job.spaceId, { revisionId: 1 }).lean<Pick<SpaceDoc, 'revisionId'>>();
  const before = { revisionId: space?.revisionId ?? state.syncedRevision ?? '', commitId: state.syncedCommit ?? '' };
  const operation = { organizationId: state.organizationId, spaceId: job.spaceId, operationId: job.operationId, direction: job.direction };
  await announce(ctx, EVENTS.gitSyncStarted, { ...operation, ...before });
  try {
    credentials = job.sealedCredentials ? openCredentials(ctx.config.INTERNAL_HMAC_SECRET, job.sealedCredentials) : null;
    // Checked when the job runs (not when it was queued): the addresses git connects to are these.
    const pinnedHosts = await pinRepositoryHost(job.url, settings);
    const options = { allowedProtocols: settings.GIT_ALLOWED_PROTOCOLS, remote: job.url, credentials, pinnedHosts, signal: controller.signal };
    const result: OperationResult = await withGitSession(options, (session) => {
      const run = {
        ctx,
        job,
        settings,
        session,
        credentials,
        state,
        stage: (stage: Parameters<typeof setStage>[3]) => setStage(ctx, job.spaceId, job.operationId, stage),
      };
      return job.direction === 'import' ? runImport(run) : runExport(run);
    });
    if (result.sync) await recordSync(ctx, job.spaceId, result.sync);
    await updateOperation(ctx, job.spaceId, job.operationId, { state: 'success', commit: result.commit, revisionId: result.revisionId, endedAt: new Date() });
    await announce(ctx, EVENTS.gitSyncCompleted, {
      ...operation,
      state: 'success',
      revisionId: result.revisionId ?? before.revisionId,
      commitId: result.commit,
    });
    return { state: 'success' };
  } catch (error) {
    const reason = controller.signal.aborted ? controller.signal.reason : error;
    const state = await fail(ctx, job, reason, credentials);
    await announce(ctx, EVENTS.gitSyncCompleted, { ...operation, state: 'failure', ...before });
    return { state };
  } finally {
    clearTimeout(timer);
  }
}
