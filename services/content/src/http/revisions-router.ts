import { Router } from 'express';
import type { ContentContext } from '../domain/context';
import { changeRequestsRouter } from './change-requests';
import { contentReadsRouter } from './content';
import { publicDownloadsRouter } from './public-downloads';

/** Revisions, page content, files, links, change requests (content, merge, update, PDF), public downloads. */
export function revisionsRouter(ctx: ContentContext): Router {
  const router = Router();
  router.use(publicDownloadsRouter(ctx));
  router.use(changeRequestsRouter(ctx));
  router.use(contentReadsRouter(ctx));
  return router;
}
