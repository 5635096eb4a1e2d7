import { httpError } from '@quire/http';
import type { CollectionDoc, ContentContext, SpaceDoc } from '../kernel';

/**
 * Spaces and collections with the same parent form one ordered list (ascending
 * `position`); a move "before"/"after" a sibling takes a value between two neighbours,
 * so only the moved item is written.
 */
export type SiblingPointer = { type: 'space'; space: string } | { type: 'collection'; collection: string };
export type ContentPosition = { before?: SiblingPointer; after?: SiblingPointer };

interface Sibling {
  id: string;
  parentId: string | null;
  position: number;
}

/** Position after every current child of `parentId` (new items go last). */
export async function lastPosition(ctx: ContentContext, organizationId: string, parentId: string | null): Promise<number> {
  const [space, collection] = await Promise.all([
    ctx.models.Space.findOne({ organizationId, parentId, deletedAt: null }).sort({ position: -1 }).select({ position: 1 }).lean<SpaceDoc>(),
    ctx.models.Collection.findOne({ organizationId, parentId }).sort({ position: -1 }).select({ position: 1 }).lean<CollectionDoc>(),
  ]);
  return Math.max(space?.position ?? 0, collection?.position ?? 0) + 1;
}

async function findSibling(ctx: ContentContext, organizationId: string, pointer: SiblingPointer, movingId: string): Promise<Sibling> {
  const id = pointer.type === 'space' ? pointer.space : pointer.collection;
  if (id === movingId) throw httpError.badRequest(`Invalid body: position: cannot be placed relative to itself`);
  const found =
    pointer.type === 'space'
      ? await ctx.models.Space.findOne({ _id: id, organizationId, deletedAt: null }).lean<SpaceDoc>()
      : await ctx.models.Collection.findOne({ _id: id, organizationId }).lean<CollectionDoc>();
  if (!found) throw httpError.badRequest(`Invalid body: position: no ${pointer.type} ${id} in this organization`);
  return { id: found._id, parentId: found.parentId ?? null, position: found.position ?? 0 };
}

/**
 * Resolves a move target: the parent (given, or the sibling's) and the new position.
 * 400 when the pointed sibling is unknown, in another organization or under another parent.
 */
export async function resolvePlacement(
  ctx: ContentContext,
  input: { organizationId: string; movingId: string; parent: string | null | undefined; position: ContentPosition | undefined; currentParent: string | null },
): Promise<{ parentId: string | null; position: number | undefined }> {
  const { organizationId, movingId, position } = input;
  const pointer = position?.before ?? position?.after;
  if (position?.before && position?.after) throw httpError.badRequest('Invalid body: position: give either before or after, not both');
  if (!pointer) {
    const parentId = input.parent === undefined ? input.currentParent : input.parent;
    return { parentId, position: parentId === input.currentParent ? undefined : await lastPosition(ctx, organizationId, parentId) };
  }
  const sibling = await findSibling(ctx, organizationId, pointer, movingId);
  if (input.parent !== undefined && input.parent !== sibling.parentId) {
    throw httpError.badRequest('Invalid body: position: the sibling is not in the given parent');
  }
  const parentId = sibling.parentId;
  const before = Boolean(position?.before);
  const neighbourFilter = { organizationId, parentId, position: before ? { $lt: sibling.position } : { $gt: sibling.position } };
  const sort = { position: before ? -1 : 1 } as const;
  const [space, collection] = await Promise.all([
    ctx.models.Space.findOne({ ...neighbourFilter, deletedAt: null, _id: { $ne: movingId } })
      .sort(sort)
      .select({ position: 1 })
      .lean<SpaceDoc>(),
    ctx.models.Collection.findOne({ ...neighbourFilter, _id: { $ne: movingId } })
      .sort(sort)
      .select({ position: 1 })
      .lean<CollectionDoc>(),
  ]);
  const candidates = [space?.position, collection?.position].filter((p): p is number => typeof p === 'number');
  const neighbour = candidates.length === 0 ? undefined : before ? Math.max(...candidates) : Math.min(...candidates);
  const value = neighbour === undefined ? sibling.position + (before ? -1 : 1) : (neighbour + sibling.position) / 2;
  return { parentId, position: value };
}
