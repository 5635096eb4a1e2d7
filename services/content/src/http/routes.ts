import { Router } from 'express';
import type { ContentContext } from '../domain/context';
import { commentsRouter } from './comments-router';
import { gitRouter } from './git-router';
import { revisionsRouter } from './revisions-router';
import { searchRouter } from './search-router';
import { structureRouter } from './structure-router';
import { templatesRouter } from './templates-router';

/** Every REST route of the content service; each area has its own router module. */
export function contentRouter(ctx: ContentContext): Router {
  const router = Router();
  router.use(structureRouter(ctx));
  router.use(revisionsRouter(ctx));
  router.use(commentsRouter(ctx));
  router.use(searchRouter(ctx));
  router.use(templatesRouter(ctx));
  router.use(gitRouter(ctx));
  return router;
}
