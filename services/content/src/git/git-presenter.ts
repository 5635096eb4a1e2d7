import type { SpaceGitSync } from '../structure';
import type { GitSyncDoc, GitSyncSummary } from './git-store';

/** The repository a space syncs with (spec "Git info"; OpenAPI GitSyncState without its operation), also shown as Space.gitSync. */
export function presentGitSync(state: GitSyncSummary): SpaceGitSync {
  return {
    installationId: state.installationId,
    installationProvider: state.provider,
    installationStatus: 'active',
    integration: state.provider,
    repoName: state.repoName,
    url: state.treeUrl ?? state.url,
    updatedAt: new Date(state.updatedAt).toISOString(),
  };
}

const iso = (date: Date | string) => new Date(date).toISOString();

/** OpenAPI GitSyncState, plus the operation's `commit` and `revision` (the revision an import made). */
export function presentGitInfo(state: GitSyncDoc, { operationTimeout }: { operationTimeout: number }) {
  const operation = state.operation;
  return {
    ...presentGitSync(state),
    operationTimeout,
    ...(operation
      ? {
          operation: {
            state: operation.state,
            direction: operation.direction,
            stage: operation.stage,
            dispatchedTasks: 0,
            completedTasks: 0,
            startedAt: iso(operation.startedAt),
            updatedAt: iso(operation.updatedAt),
            ...(operation.endedAt ? { endedAt: iso(operation.endedAt) } : {}),
            ...(operation.endedAt && operation.state === 'success' ? { completedAt: iso(operation.endedAt) } : {}),
            ...(operation.error ? { error: operation.error } : {}),
            ...(operation.commit ? { commit: operation.commit } : {}),
            ...(operation.revisionId ? { revision: operation.revisionId } : {}),
          },
        }
      : {}),
  };
}
