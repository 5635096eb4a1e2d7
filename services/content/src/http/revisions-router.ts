import { Router } from 'express';
import type { ContentContext } from '../domain/context';

/** Revisions, page content, files, links, change requests (content, merge, update, PDF). */
export function revisionsRouter(ctx: ContentContext): Router {
  void ctx;
  return Router();
}
