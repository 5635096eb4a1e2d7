import { z } from 'zod';
import type { ContentContext } from '../kernel';

/** Search settings, merged into the service's config by config.ts. */
export const searchConfigSchema = z.object({
  /**
   * Search indexes one organization may have in the making at once (built, or loaded from their
   * stored form), across all processes: making one is seconds of CPU for a large space. A search
   * that needs one more answers 429 with Retry-After.
   */
  SEARCH_INDEX_BUILDS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(64).default(2),
});
type SearchConfig = z.infer<typeof searchConfigSchema>;

const DEFAULT_BUILDS_PER_ORGANIZATION = 2;

/** The configured SEARCH_INDEX_BUILDS_PER_ORGANIZATION (services started by tests pass only the backend config). */
export function indexBuildsPerOrganization(ctx: ContentContext): number {
  return (ctx.config as Partial<SearchConfig>).SEARCH_INDEX_BUILDS_PER_ORGANIZATION ?? DEFAULT_BUILDS_PER_ORGANIZATION;
}
