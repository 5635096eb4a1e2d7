import { apiUrl, httpError } from '@quire/http';
import type { content } from '@quire/proto';
import { ClientError } from '@quire/runtime';
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
    const { spaces } = await ctx.clients.content
      .batchGetSpaces({ ids: unique.slice(start, start + MAX_BATCH), includeDeleted: false, viewerUserId })
      .catch((error: unknown) => {
        // Without content we cannot tell which spaces exist: say so rather than answer a partial site.
        if (error instanceof ClientError) throw httpError.unavailable('Spaces are temporarily unavailable; try again');
        throw error;
      });
    for (const space of spaces) {
      if (space.organizationId !== organizationId || space.deleteTime) continue;
      found.set(space.id, { id: space.id, organizationId: space.organizationId, title: space.title, rest: restSpace(ctx, space) });
    }
  }
  return found;
}

/** content's own presentation when it sent one; otherwise the fields the message carries. */
function restSpace(ctx: PublishingContext, space: content.Space): Record<string, unknown> {
  if (space.restJson) {
    try {
      return JSON.parse(space.restJson) as Record<string, unknown>;
    } catch {
      ctx.logger.warn({ spaceId: space.id }, 'content sent unreadable rest_json; presenting the message fields');
    }
  }
  const base = ctx.config.PUBLIC_BASE_URL;
  return {
    object: 'space',
    id: space.id,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility,
    organization: space.organizationId,
    ...(space.parentId ? { parent: space.parentId } : {}),
    revision: space.revisionId,
    defaultLevel: space.defaultLevel || null,
    createdAt: space.createTime?.toISOString(),
    updatedAt: space.updateTime?.toISOString(),
    urls: { location: apiUrl(base, `/v1/spaces/${space.id}`), app: apiUrl(base, `/s/${space.id}`) },
  };
}
