import { Router } from 'express';
import { apiUrl, listEnvelope, parseInput, principalOf } from '@quire/http';
import { loadSpaceAccess } from '../domain/access';
import type { SpaceDoc } from '../db/structure';
import type { ContentContext } from '../domain/context';
import { loadSpacesGitSyncs } from '../domain/git/state';
import { deleteSpace, restoreSpace, transferSpace } from '../domain/space-lifecycle';
import { resolvePublishedUrl } from '../domain/published';
import { createSpace, duplicateSpace, listCollectionSpaces, listOrganizationSpaces, moveSpace, updateSpace } from '../domain/spaces';
import { presentSpace } from './space-presenter';
import {
  collectionParams,
  createSpaceBody,
  getSpaceQuery,
  listQuery,
  moveBody,
  organizationParams,
  spaceParams,
  transferBody,
  updateSpaceBody,
} from './structure-schemas';

/** /v1/orgs/{org}/spaces, /v1/spaces/{spaceId} and its lifecycle operations, /v1/collections/{id}/spaces. */
export function spacesRouter(ctx: ContentContext): Router {
  const router = Router();
  const base = ctx.config.PUBLIC_BASE_URL;
  // New spaces (create, duplicate) have no Git sync state: only existing ones that may have one look it up.
  const gitSyncOf = async (space: SpaceDoc) => (await loadSpacesGitSyncs(ctx, [space])).get(space._id);

  router.post('/v1/orgs/:organizationId/spaces', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const body = parseInput(createSpaceBody, req.body, 'body');
    const { space, role } = await createSpace(ctx, userId, organizationId, body);
    res
      .status(201)
      .location(apiUrl(base, `/v1/spaces/${space._id}`))
      .json(presentSpace(space, role, base));
  });

  /** A page of spaces the caller sees, with their Git sync states in one query. */
  const presentSpacePage = async (page: Awaited<ReturnType<typeof listOrganizationSpaces>>) => {
    const gitSyncs = await loadSpacesGitSyncs(
      ctx,
      page.items.map(({ space }) => space),
    );
    const items = page.items.map(({ space, role }) => presentSpace(space, role, base, undefined, gitSyncs.get(space._id)));
    return listEnvelope(items, page.count, page.next);
  };

  router.get('/v1/orgs/:organizationId/spaces', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const query = parseInput(listQuery, req.query, 'query');
    const page = await listOrganizationSpaces(ctx, userId, organizationId, query);
    res.json(await presentSpacePage(page));
  });

  router.get('/v1/collections/:collectionId/spaces', async (req, res) => {
    const { userId } = principalOf(req);
    const { collectionId } = parseInput(collectionParams, req.params, 'params');
    const query = parseInput(listQuery, req.query, 'query');
    const page = await listCollectionSpaces(ctx, userId, collectionId, query);
    res.json(await presentSpacePage(page));
  });

  // With a shareKey, the published address comes from the share link's site (publishing owns it).
  router.get('/v1/spaces/:spaceId', async (req, res) => {
    const { userId } = principalOf(req);
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const { shareKey } = parseInput(getSpaceQuery, req.query, 'query');
    const access = await loadSpaceAccess(ctx, userId, spaceId, { cached: true });
    const published = shareKey === undefined ? undefined : await resolvePublishedUrl(ctx, access.space, shareKey);
    res.json(presentSpace(access.space, access.role, base, published, await gitSyncOf(access.space)));
  });

  router.patch('/v1/spaces/:spaceId', async (req, res) => {
    const { userId } = principalOf(req);
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const body = parseInput(updateSpaceBody, req.body, 'body');
    const access = await loadSpaceAccess(ctx, userId, spaceId);
    const { space, role } = await updateSpace(ctx, userId, access, body);
    res.json(presentSpace(space, role, base, undefined, await gitSyncOf(space)));
  });

  router.delete('/v1/spaces/:spaceId', async (req, res) => {
    const { userId } = principalOf(req);
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    await deleteSpace(ctx, userId, spaceId);
    res.status(204).end();
  });

  router.post('/v1/spaces/:spaceId/duplicate', async (req, res) => {
    const { userId } = principalOf(req);
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const access = await loadSpaceAccess(ctx, userId, spaceId);
    const { space, role } = await duplicateSpace(ctx, userId, access);
    res
      .status(201)
      .location(apiUrl(base, `/v1/spaces/${space._id}`))
      .json(presentSpace(space, role, base));
  });

  router.post('/v1/spaces/:spaceId/restore', async (req, res) => {
    const { userId } = principalOf(req);
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const { space, role } = await restoreSpace(ctx, userId, spaceId);
    res.json(presentSpace(space, role, base, undefined, await gitSyncOf(space)));
  });

  router.post('/v1/spaces/:spaceId/move', async (req, res) => {
    const { userId } = principalOf(req);
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const body = parseInput(moveBody, req.body, 'body');
    const access = await loadSpaceAccess(ctx, userId, spaceId);
    const { space, role } = await moveSpace(ctx, userId, access, body);
    res.json(presentSpace(space, role, base, undefined, await gitSyncOf(space)));
  });

  router.post('/v1/spaces/:spaceId/transfer', async (req, res) => {
    const { userId } = principalOf(req);
    const { spaceId } = parseInput(spaceParams, req.params, 'params');
    const body = parseInput(transferBody, req.body, 'body');
    const access = await loadSpaceAccess(ctx, userId, spaceId);
    const { space, role } = await transferSpace(ctx, userId, access, body.organization);
    res.json(presentSpace(space, role, base, undefined, await gitSyncOf(space)));
  });

  return router;
}
