import { newId, findByIds } from '@quire/runtime';
import { withLock, type ContentContext, type SpaceDoc } from '../kernel';
import {
  GIT_SYNC_SUMMARY_FIELDS,
  type GitOperationDirection,
  type GitOperationDoc,
  type GitOperationStage,
  type GitSyncDoc,
  type GitSyncSummary,
} from './git-store';

/*
 * The git sync state document of a space. Requests (router), jobs (worker) and removals
 * all write it; FerretDB may lose one of two racing updates of a document, so every write
 * runs under the space's git-state lock.
 */

export const gitStateLock = (spaceId: string) => `git-sync:${spaceId}`;

/** How many synced / exported commits are remembered (ancestry of the last sync, own commits). */
const MAX_REMEMBERED_COMMITS = 100;

export async function loadGitSync(ctx: ContentContext, spaceId: string): Promise<GitSyncDoc | null> {
  return ctx.models.GitSync.findById(spaceId).lean<GitSyncDoc>();
}

/** The Git sync summaries (Space.gitSync) of the given spaces that have one, in one query. */
export async function loadGitSyncSummaries(ctx: ContentContext, spaceIds: readonly string[]): Promise<Map<string, GitSyncSummary>> {
  const ids = [...new Set(spaceIds)];
  if (ids.length === 0) return new Map();
  const states = (await findByIds(ctx.models.GitSync, ids, { projection: GIT_SYNC_SUMMARY_FIELDS })) as GitSyncSummary[];
  return new Map(states.map((state) => [state._id, state]));
}

/** loadGitSyncSummaries for loaded spaces, without asking for those known never to have synced (Space.gitSync false). */
export function loadSpacesGitSyncs(ctx: ContentContext, spaces: ReadonlyArray<Pick<SpaceDoc, '_id' | 'gitSync'>>): Promise<Map<string, GitSyncSummary>> {
  return loadGitSyncSummaries(
    ctx,
    spaces.filter((space) => space.gitSync !== false).map((space) => space._id),
  );
}

export interface RepositorySettings {
  organizationId: string;
  url: string;
  ref: string;
  provider: 'github' | 'gitlab';
  treeUrl: string | null;
  repoName: string;
}

/**
 * Records the repository of a new operation, makes that operation the latest one (state
 * running) and queues it with `enqueue`, all under the state lock: once the lock is free, a
 * running operation has its job (what settleLostOperation relies on). When it cannot be
 * queued the operation is recorded as failed and the error rethrown.
 */
export async function startOperation(
  ctx: ContentContext,
  spaceId: string,
  repository: RepositorySettings,
  direction: GitOperationDirection,
  enqueue: (operation: GitOperationDoc) => Promise<void>,
): Promise<GitOperationDoc> {
  const now = new Date();
  const operation: GitOperationDoc = {
    id: newId(),
    state: 'running',
    direction,
    stage: 'repo_fetch',
    startedAt: now,
    updatedAt: now,
    endedAt: null,
    error: null,
    commit: null,
    revisionId: null,
  };
  await withLock(ctx, gitStateLock(spaceId), async () => {
    // Flagged first: a space never shows a Git sync state its flag hides (the flag stays once set).
    await ctx.models.Space.updateOne({ _id: spaceId, gitSync: { $ne: true } }, { $set: { gitSync: true } });
    await ctx.models.GitSync.updateOne(
      { _id: spaceId },
      { $set: { ...repository, updatedAt: now, operation }, $setOnInsert: { installationId: newId(), createdAt: now } },
      { upsert: true },
    );
    try {
      await enqueue(operation);
    } catch (error) {
      const ended = new Date();
      await ctx.models.GitSync.updateOne(
        { _id: spaceId, 'operation.id': operation.id },
        {
          $set: {
            'operation.state': 'failure',
            'operation.error': 'The operation could not be queued',
            'operation.endedAt': ended,
            'operation.updatedAt': ended,
          },
        },
      );
      throw error;
    }
  });
  return operation;
}

/** Updates the operation `operationId` if it is still the latest one (a newer request replaced it otherwise). */
export async function updateOperation(
  ctx: ContentContext,
  spaceId: string,
  operationId: string,
  patch: Partial<Pick<GitOperationDoc, 'state' | 'stage' | 'error' | 'commit' | 'revisionId' | 'endedAt'>>,
): Promise<void> {
  const set: Record<string, unknown> = { 'operation.updatedAt': new Date() };
  for (const [key, value] of Object.entries(patch)) set[`operation.${key}`] = value;
  await withLock(ctx, gitStateLock(spaceId), () => ctx.models.GitSync.updateOne({ _id: spaceId, 'operation.id': operationId }, { $set: set }));
}

export function setStage(ctx: ContentContext, spaceId: string, operationId: string, stage: GitOperationStage): Promise<void> {
  return updateOperation(ctx, spaceId, operationId, { stage });
}

/** What a successful operation changes in the sync bookkeeping. */
export interface SyncPoint {
  commit: string;
  revisionId: string;
  timestamp: Date | null;
  /** An export pushed this commit. */
  exported: boolean;
  /** The history before it is no longer an ancestry (a forced export over a diverged branch). */
  resetHistory: boolean;
}

/** Records the point where the space and the branch are equal after an import or an export. */
export async function recordSync(ctx: ContentContext, spaceId: string, point: SyncPoint): Promise<void> {
  await withLock(ctx, gitStateLock(spaceId), async () => {
    const state = await loadGitSync(ctx, spaceId);
    if (!state) return;
    const remember = (list: string[]) => [point.commit, ...list.filter((oid) => oid !== point.commit)].slice(0, MAX_REMEMBERED_COMMITS);
    const set: Record<string, unknown> = {
      syncedCommit: point.commit,
      syncedRevision: point.revisionId,
      syncedHistory: remember(point.resetHistory ? [] : (state.syncedHistory ?? [])),
    };
    if (point.exported) set.exportedCommits = remember(state.exportedCommits ?? []);
    if (point.timestamp && (!state.lastTimestamp || point.timestamp > new Date(state.lastTimestamp))) set.lastTimestamp = point.timestamp;
    await ctx.models.GitSync.updateOne({ _id: spaceId }, { $set: set });
  });
}

/** Removes a space's git sync state (idempotent). */
export async function removeGitSync(ctx: ContentContext, spaceId: string): Promise<void> {
  await withLock(ctx, gitStateLock(spaceId), () => ctx.models.GitSync.deleteOne({ _id: spaceId }));
}

/** Removes the git sync state of a purged space (idempotent; run by the purge, under the space's lock). */
export async function purgeSpaceGitSync(ctx: ContentContext, spaceId: string): Promise<void> {
  await ctx.models.GitSync.deleteOne({ _id: spaceId });
}
