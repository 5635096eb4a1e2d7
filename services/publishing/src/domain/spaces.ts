import { clientsOf, type SpaceObject } from '@quire/http';
import type { PublishingContext } from './context';

/** A space as content presents it to the viewer (spec "Space"), plus what publishing needs. */
export interface EmbeddedSpace {
  id: string;
  organizationId: string;
  title: string;
  rest: SpaceObject;
}

/** What one BatchGetSpaces told about a set of spaces, for one viewer. */
export interface SpaceLookup {
  /** Live spaces of the organization the viewer may open (GET /v1/spaces/{id} answers them). */
  visible: Map<string, EmbeddedSpace>;
  /**
   * Live spaces of the organization the viewer has no role on (a 404 for them): they exist,
   * so what points at them is kept, but nothing of them may be shown to this viewer.
   */
  hidden: Set<string>;
}

/**
 * The live spaces among `ids` that belong to `organizationId`, as `viewerUserId` sees them:
 * BatchGetSpaces (one call per response in practice). Deleted, purged,
 * transferred or unknown spaces are in neither set, so callers drop what points at them.
 */
export async function lookUpSpaces(ctx: PublishingContext, organizationId: string, ids: string[], viewerUserId: string): Promise<SpaceLookup> {
  const unique = [...new Set(ids)];
  const lookup: SpaceLookup = { visible: new Map(), hidden: new Set() };
  // Without content we cannot tell which spaces exist: a 503 rather than a partial site.
  const { spaces } = await clientsOf(ctx).content.batchGetSpaces({ ids: unique, includeDeleted: false, viewerUserId });
  for (const space of spaces) {
    if (space.organizationId !== organizationId || space.deleteTime) continue;
    // Asked with a viewer, content returns the spaces they cannot open too, with no role:
    // their title, revision and counters are exactly what must not reach this viewer.
    if (!space.viewerRole || !space.rest) {
      lookup.hidden.add(space.id);
      continue;
    }
    lookup.visible.set(space.id, { id: space.id, organizationId: space.organizationId, title: space.title, rest: space.rest });
  }
  return lookup;
}

/** The spaces among `ids` the viewer may open (see lookUpSpaces); the others are absent. */
export async function fetchSpaces(ctx: PublishingContext, organizationId: string, ids: string[], viewerUserId: string): Promise<Map<string, EmbeddedSpace>> {
  return (await lookUpSpaces(ctx, organizationId, ids, viewerUserId)).visible;
}
