import { gitConfigSchema, type GitConfig } from '../../config';
import type { ContentContext } from '../context';

const settings = new WeakMap<ContentContext, GitConfig>();

/**
 * The git settings of this service instance. The context's config is typed as the
 * backend one (services started in-process by tests pass only that), so the git keys are
 * parsed from it with their defaults.
 */
export function gitSettings(ctx: ContentContext): GitConfig {
  let parsed = settings.get(ctx);
  if (!parsed) {
    parsed = gitConfigSchema.parse(ctx.config);
    settings.set(ctx, parsed);
  }
  return parsed;
}
