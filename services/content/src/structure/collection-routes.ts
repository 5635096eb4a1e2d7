import { Router } from 'express';
import { apiUrl, listEnvelope, parseInput, principalOf } from '@quire/http';
import { loadCollectionAccess } from '../domain/access';
import { createCollection, deleteCollection, listCollections, moveCollection, transferCollection, updateCollection } from '../domain/collections';
import type { ContentContext } from '../domain/context';
import { presentCollection } from './space-presenter';
import {
  collectionParams,
  createCollectionBody,
  listCollectionsQuery,
  moveBody,
  organizationParams,
  transferBody,
  updateCollectionBody,
} from './structure-schemas';

/** /v1/orgs/{org}/collections and /v1/collections/{collectionId} with move and transfer. */
export function collectionsRouter(ctx: ContentContext): Router {
  const router = Router();
  const base = ctx.config.PUBLIC_BASE_URL;

  router.post('/v1/orgs/:organizationId/collections', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const body = parseInput(createCollectionBody, req.body, 'body');
    const { collection, role } = await createCollection(ctx, userId, organizationId, body);
    res
      .status(201)
      .location(apiUrl(base, `/v1/collections/${collection._id}`))
      .json(presentCollection(collection, role, base));
  });

  router.get('/v1/orgs/:organizationId/collections', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const { nested, ...query } = parseInput(listCollectionsQuery, req.query, 'query');
    const page = await listCollections(ctx, userId, organizationId, { ...query, nested: nested ?? true });
    res.json(
      listEnvelope(
        page.items.map(({ collection, role }) => presentCollection(collection, role, base)),
        page.count,
        page.next,
      ),
    );
  });

  router.get('/v1/collections/:collectionId', async (req, res) => {
    const { userId } = principalOf(req);
    const { collectionId } = parseInput(collectionParams, req.params, 'params');
    const access = await loadCollectionAccess(ctx, userId, collectionId);
    res.json(presentCollection(access.collection, access.role, base));
  });

  router.patch('/v1/collections/:collectionId', async (req, res) => {
    const { userId } = principalOf(req);
    const { collectionId } = parseInput(collectionParams, req.params, 'params');
    const body = parseInput(updateCollectionBody, req.body, 'body');
    const access = await loadCollectionAccess(ctx, userId, collectionId);
    const { collection, role } = await updateCollection(ctx, userId, access, body);
    res.json(presentCollection(collection, role, base));
  });

  router.delete('/v1/collections/:collectionId', async (req, res) => {
    const { userId } = principalOf(req);
    const { collectionId } = parseInput(collectionParams, req.params, 'params');
    await deleteCollection(ctx, userId, collectionId);
    res.status(204).end();
  });

  router.post('/v1/collections/:collectionId/move', async (req, res) => {
    const { userId } = principalOf(req);
    const { collectionId } = parseInput(collectionParams, req.params, 'params');
    const body = parseInput(moveBody, req.body, 'body');
    const access = await loadCollectionAccess(ctx, userId, collectionId);
    const { collection, role } = await moveCollection(ctx, userId, access, body);
    res.json(presentCollection(collection, role, base));
  });

  router.post('/v1/collections/:collectionId/transfer', async (req, res) => {
    const { userId } = principalOf(req);
    const { collectionId } = parseInput(collectionParams, req.params, 'params');
    const body = parseInput(transferBody, req.body, 'body');
    const access = await loadCollectionAccess(ctx, userId, collectionId);
    const { collection, role } = await transferCollection(ctx, userId, access, body.organization);
    res.json(presentCollection(collection, role, base));
  });

  return router;
}
