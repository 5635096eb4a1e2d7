import { Router } from 'express';
import type { ContentContext } from '../domain/context';
import { revisionsRouter } from './revisions-router';
import { structureRouter } from './structure-router';

/** Every REST route of the content service; each area has its own router module. */
export function contentRouter(ctx: ContentContext): Router {
  const router = Router();
  router.use(structureRouter(ctx));
  router.use(revisionsRouter(ctx));
  return router;
}
