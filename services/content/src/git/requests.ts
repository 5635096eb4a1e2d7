import { httpError } from '@quire/http';
import { loadSpaceAccess, requireSpaceRole, SPACE_ACTION_ROLES } from '../access';
import type { ContentContext } from '../kernel';
import type { GitOperationDirection, GitSyncDoc } from './git-store';
import { normalizeRepoPath } from './layout';
import { parseRemote, providerOf, RemoteUrlError, repositoryName, sealCredentials } from './remote';
import { gitSettings } from './settings';
import { loadGitSync, removeGitSync, startOperation } from './state';
import { enqueueGitJob, settleLostOperation } from './worker';

/** An import or export request as the API takes it (validated by the router). */
export interface GitOperationInput {
  url: string;
  ref: string;
  commitMessage?: string;
  repoTreeURL?: string;
  repoCommitURL?: string;
  repoProjectDirectory?: string;
  timestamp?: string;
  force?: boolean;
  standalone?: boolean;
  gitInfo?: { provider?: 'github' | 'gitlab'; url?: string };
}

/**
 * Queues an import or export of a space (edit role: triggerGitSync). The repository
 * address is checked against GIT_ALLOWED_PROTOCOLS (a 400 on `url`) and recorded without
 * credentials; the operation shows as `running` in git info from now on. Where its host
 * resolves to is checked when the job runs, right before git connects (repository-address.ts).
 */
export async function requestGitOperation(
  ctx: ContentContext,
  userId: string,
  spaceId: string,
  direction: GitOperationDirection,
  input: GitOperationInput,
): Promise<void> {
  const access = await loadSpaceAccess(ctx, userId, spaceId);
  requireSpaceRole(access, SPACE_ACTION_ROLES.triggerGitSync, `${direction} its content with Git`);
  const settings = gitSettings(ctx);
  let remote;
  try {
    remote = parseRemote(input.url, settings.GIT_ALLOWED_PROTOCOLS);
  } catch (error) {
    if (error instanceof RemoteUrlError) throw httpError.badRequest(`Invalid body: url: ${error.message}`);
    throw error;
  }
  const repository = {
    organizationId: access.space.organizationId,
    url: remote.url,
    ref: input.ref,
    provider: providerOf(remote.url, input.gitInfo?.provider),
    treeUrl: input.gitInfo?.url ?? null,
    repoName: repositoryName(remote.url),
  };
  await startOperation(ctx, spaceId, repository, direction, (operation) =>
    enqueueGitJob(ctx, {
      operationId: operation.id,
      direction,
      spaceId,
      organizationId: access.space.organizationId,
      userId,
      url: remote.url,
      sealedCredentials: remote.credentials ? sealCredentials(ctx.config.INTERNAL_HMAC_SECRET, remote.credentials) : null,
      ref: input.ref,
      projectDirectory: normalizeRepoPath(input.repoProjectDirectory ?? '') ?? '',
      repoTreeURL: input.repoTreeURL ?? null,
      repoCommitURL: input.repoCommitURL ?? null,
      commitMessage: input.commitMessage ?? null,
      timestamp: input.timestamp ? new Date(input.timestamp).toISOString() : null,
      force: input.force ?? false,
      standalone: input.standalone ?? false,
    }).catch((error: unknown) => {
      ctx.logger.error({ err: (error as Error).message, spaceId }, 'could not queue a git operation');
      throw httpError.unavailable('The Git operation could not be queued; retry');
    }),
  );
}

/** DELETE …/git/legacy-installation: the space forgets its repository (204 also when there was none). */
export async function removeGitInstallation(ctx: ContentContext, userId: string, spaceId: string): Promise<void> {
  const access = await loadSpaceAccess(ctx, userId, spaceId);
  requireSpaceRole(access, SPACE_ACTION_ROLES.triggerGitSync, 'remove its Git sync');
  await removeGitSync(ctx, spaceId);
}

/** The space's git sync state for a reader of the space (404 without one), a lost operation settled first. */
export async function readGitSync(ctx: ContentContext, userId: string, spaceId: string): Promise<GitSyncDoc> {
  await loadSpaceAccess(ctx, userId, spaceId);
  const state = await loadGitSync(ctx, spaceId);
  if (!state) throw httpError.notFound('Git sync');
  return settleLostOperation(ctx, state);
}
