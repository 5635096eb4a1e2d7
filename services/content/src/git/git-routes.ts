import { gitSyncState } from '@quire/contract';
import { route, type Route } from '@quire/http';
import { spaceParams, type ContentContext } from '../kernel';
import { presentGitInfo } from './git-presenter';
import { exportBody, importBody } from './git-schemas';
import { readGitSync, removeGitInstallation, requestGitOperation } from './requests';
import { gitSettings } from './settings';

/*
 * /v1/spaces/{spaceId}/git: import and export (queued, 204), git info (OpenAPI
 * GitSyncState), and removal of the space's git sync state.
 */

export function gitRoutes(ctx: ContentContext): Route[] {
  return [
    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/git/import',
      summary: "Queue an import of a Git repository's branch into the space",
      params: spaceParams,
      body: importBody,
      handler: async ({ caller, params, body }) => {
        await requestGitOperation(ctx, caller.userId, params.spaceId, 'import', body);
      },
    }),

    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/git/export',
      summary: "Queue an export of the space's content to a Git repository's branch",
      params: spaceParams,
      body: exportBody,
      handler: async ({ caller, params, body }) => {
        await requestGitOperation(ctx, caller.userId, params.spaceId, 'export', body);
      },
    }),

    route({
      method: 'get',
      path: '/v1/spaces/:spaceId/git/info',
      summary: "Get the space's Git sync state and its latest operation",
      response: gitSyncState,
      params: spaceParams,
      handler: async ({ caller, params }) =>
        presentGitInfo(await readGitSync(ctx, caller.userId, params.spaceId), { operationTimeout: gitSettings(ctx).GIT_OPERATION_TIMEOUT_MS }),
    }),

    route({
      method: 'delete',
      path: '/v1/spaces/:spaceId/git/legacy-installation',
      summary: "Remove the space's Git sync state",
      params: spaceParams,
      handler: async ({ caller, params }) => {
        await removeGitInstallation(ctx, caller.userId, params.spaceId);
      },
    }),
  ];
}
