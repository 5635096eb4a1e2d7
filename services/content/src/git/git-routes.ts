import { httpError, parseInput, principalOf } from '@quire/http';
import { Router } from 'express';
import { z } from 'zod';
import type { GitSyncDoc } from '../db/git';
import { loadSpaceAccess } from '../domain/access';
import type { ContentContext } from '../domain/context';
import { isInGitDirectory, normalizeRepoPath } from '../domain/git/layout';
import { removeGitInstallation, requestGitOperation } from '../domain/git/requests';
import { gitSettings } from '../domain/git/settings';
import { loadGitSync } from '../domain/git/state';
import { settleLostOperation } from '../domain/git/worker';
import { presentGitSync } from './space-presenter';

/*
 * /v1/spaces/{spaceId}/git: import and export (queued, 204), git info (OpenAPI
 * GitSyncState), and removal of the space's git sync state.
 */

/** `refs/heads/<branch>` with a branch name git accepts (git check-ref-format rules). */
function isBranchRef(ref: string): boolean {
  if (!ref.startsWith('refs/heads/') || ref.length > 255) return false;
  const branch = ref.slice('refs/heads/'.length);
  if (branch === '' || branch === '@' || branch.endsWith('/') || branch.endsWith('.')) return false;
  if (/[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\//.test(branch)) return false;
  return branch.split('/').every((component) => component !== '' && !component.startsWith('.') && !component.endsWith('.lock'));
}

// Shown to readers (git info, Space.gitSync, commit and file links): never with credentials in it.
const webUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) address' })
  .max(2048)
  .refine((value) => {
    const url = URL.parse(value);
    return !url?.username && !url?.password;
  }, 'must not contain credentials');

// A timestamp from the future would be the newest forever and make every later event look older.
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

const operationBody = z.object({
  url: z.string().min(1).max(2048),
  ref: z.string().refine(isBranchRef, 'must be a branch ref of the form refs/heads/<branch>'),
  repoCacheID: z.string().max(256).optional(),
  repoTreeURL: webUrl.optional(),
  repoCommitURL: webUrl.optional(),
  repoProjectDirectory: z
    .string()
    .max(1024)
    .refine((value) => {
      const directory = normalizeRepoPath(value);
      return directory !== null && !isInGitDirectory(directory);
    }, 'must be a directory inside the repository (not in .git)')
    .optional(),
  timestamp: z.iso
    .datetime({ offset: true })
    .refine((value) => !(new Date(value).getTime() > Date.now() + MAX_CLOCK_SKEW_MS), 'must not be in the future')
    .optional(),
  force: z.boolean().optional(),
  standalone: z.boolean().optional(),
  gitInfo: z.object({ provider: z.enum(['github', 'gitlab']).optional(), url: webUrl.optional() }).optional(),
});
const importBody = operationBody;
const exportBody = operationBody.extend({ commitMessage: z.string().min(1).max(65_536) });

const iso = (date: Date | string) => new Date(date).toISOString();

/** OpenAPI GitSyncState, plus the operation's `commit` and `revision` (the revision an import made). */
export function presentGitInfo(state: GitSyncDoc, operationTimeout: number) {
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

const spaceParams = z.object({ spaceId: z.string().min(1) });

export function gitRouter(ctx: ContentContext): Router {
  const router = Router();

  router.post('/v1/spaces/:spaceId/git/import', async (req, res) => {
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const body = parseInput(importBody, req.body, 'body');
    await requestGitOperation(ctx, principalOf(req).userId, spaceId, 'import', body);
    res.status(204).end();
  });

  router.post('/v1/spaces/:spaceId/git/export', async (req, res) => {
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const body = parseInput(exportBody, req.body, 'body');
    await requestGitOperation(ctx, principalOf(req).userId, spaceId, 'export', body);
    res.status(204).end();
  });

  router.get('/v1/spaces/:spaceId/git/info', async (req, res) => {
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    await loadSpaceAccess(ctx, principalOf(req).userId, spaceId);
    const state = await loadGitSync(ctx, spaceId);
    if (!state) throw httpError.notFound('Git sync');
    res.json(presentGitInfo(await settleLostOperation(ctx, state), gitSettings(ctx).GIT_OPERATION_TIMEOUT_MS));
  });

  router.delete('/v1/spaces/:spaceId/git/legacy-installation', async (req, res) => {
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    await removeGitInstallation(ctx, principalOf(req).userId, spaceId);
    res.status(204).end();
  });

  return router;
}
