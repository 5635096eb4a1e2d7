import { Router } from 'express';
import type { ContentContext } from '../domain/context';

/**
 * Every REST route of the content service. Each area has its own router module;
 * this only mounts them (order matters only where paths overlap).
 */
export function contentRouter(ctx: ContentContext): Router {
  const router = Router();
  void ctx;
  return router;
}
