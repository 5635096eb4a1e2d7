import { Router } from 'express';
import type { ContentContext } from '../domain/context';

/** Spaces, collections and their permissions. */
export function structureRouter(ctx: ContentContext): Router {
  void ctx;
  return Router();
}
