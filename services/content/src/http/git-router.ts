import { Router } from 'express';
import type { ContentContext } from '../domain/context';

export function gitRouter(ctx: ContentContext): Router {
  void ctx;
  return Router();
}
