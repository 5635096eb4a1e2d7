import { Router } from 'express';
import type { ContentContext } from '../domain/context';

export function commentsRouter(ctx: ContentContext): Router {
  void ctx;
  return Router();
}
