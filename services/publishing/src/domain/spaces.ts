import { fromService } from '@quire/http';
import type { PublishingContext } from './context';

/** A space as content presents it to the viewer (spec "Space"), plus what publishing needs. */
export interface EmbeddedSpace {
  id: string;
  organizationId: string;
  title: string;
  rest: Record<string, unknown>;
}

const MAX_BATCH = 1000;

/**
 * The live spaces among `ids` that belong to `organizationId`, as `viewerUserId` sees them:
 * one BatchGetSpaces per 1000 ids (one call per response in practice). Deleted, purged,
 * transferred or unknown spaces are simply absent, so callers drop what points at them.
 */
export async function fetchSpaces(
  ctx: PublishingContext,
  organizationId: string,
  ids: string[],
  viewerUserId: string,
): Promise<Map<string, EmbeddedSpace>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, EmbeddedSpace>();
  for (let start = 0; start < unique.length; start += MAX_BATCH) {
    // Without content we cannot tell which spaces exist: a 503 rather than a partial site.
    const { spaces } = await fromService('Content', ctx.clients.content.batchGetSpaces({ ids: unique.slice(start, start + MAX_BATCH), includeDeleted: false, viewerUserId }));
    // Asked with a viewer, content always presents each space (rest_json) for them.
    for (const space of spaces) {
      if (space.organizationId !== organizationId || space.deleteTime || !space.restJson) continue;
      found.set(space.id, { id: space.id, organizationId: space.organizationId, title: space.title, rest: JSON.parse(space.restJson) as Record<string, unknown> });
    }
  }
  return found;
}
