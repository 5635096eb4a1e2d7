import { Router } from 'express';
import type { ContentContext } from '../domain/context';
import { collectionsRouter } from './collections';
import { permissionsRouter } from './permissions';
import { spacesRouter } from './spaces';

/** Spaces, collections and their permissions. */
export function structureRouter(ctx: ContentContext): Router {
  const router = Router();
  router.use(spacesRouter(ctx));
  router.use(collectionsRouter(ctx));
  router.use(permissionsRouter(ctx));
  return router;
}
