import { EVENTS } from '@quire/async';
import { httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId, roleAtLeast, type Role } from '@quire/runtime';
import {
  chainIn,
  COLLECTION_ACTION_ROLES,
  collectionLevelIn,
  collectionRoleIn,
  getStanding,
  loadCollectionAccess,
  loadOrgView,
  requireCollectionRole,
  requireMember,
  type CollectionAccess,
} from '../access';
import { collectionLock, spaceLock, withLock, type CollectionDoc, type ContentContext, type DefaultLevel, type SpaceDoc } from '../kernel';
import { lastPosition, resolvePlacement, type ContentPosition } from './positions';

export interface CollectionWithRole {
  collection: CollectionDoc;
  role: Role | null;
  /** The default level in force on the collection (Collection.defaultLevel), resolved with the role. */
  defaultLevel: Role | null;
}

/** The viewer's role on a collection just written (moved, transferred…) and its level in force. */
async function withRole(ctx: ContentContext, userId: string, collection: CollectionDoc): Promise<CollectionWithRole> {
  const view = await loadOrgView(ctx, await requireMember(ctx, collection.organizationId, userId));
  return { collection, role: collectionRoleIn(view, collection), defaultLevel: collectionLevelIn(view, collection) };
}

async function requireCreateIn(ctx: ContentContext, userId: string, organizationId: string, parentId: string | null): Promise<void> {
  if (parentId) {
    const parent = await loadCollectionAccess(ctx, userId, parentId);
    if (parent.collection.organizationId !== organizationId) throw httpError.notFound('Collection');
    requireCollectionRole(parent, COLLECTION_ACTION_ROLES.create, 'add content to it');
    return;
  }
  const standing = await requireMember(ctx, organizationId, userId);
  if (!roleAtLeast(standing.orgRole, 'create')) throw httpError.forbidden('You need the create role in this organization to add content at its root');
}

export async function createCollection(
  ctx: ContentContext,
  userId: string,
  organizationId: string,
  input: { title?: string; description?: string; parent?: string },
): Promise<CollectionWithRole> {
  const parentId = input.parent ?? null;
  await requireCreateIn(ctx, userId, organizationId, parentId);
  const now = new Date();
  const created = await ctx.models.Collection.create({
    _id: newId(),
    organizationId,
    title: input.title ?? '',
    description: input.description ?? null,
    parentId,
    position: await lastPosition(ctx, organizationId, parentId),
    defaultLevel: 'inherit',
    createdBy: userId,
    createdAt: now,
    updatedAt: now,
  });
  return withRole(ctx, userId, created.toObject() as CollectionDoc);
}

/**
 * Collections of an organization the caller can access, newest first; `nested: false`
 * keeps only top-level ones. Visibility is decided in memory over the organization's
 * collections (loaded anyway for the rules), the page itself is a keyset query.
 */
export async function listCollections(
  ctx: ContentContext,
  userId: string,
  organizationId: string,
  query: { page?: string; limit: number; nested: boolean },
): Promise<KeysetPage<CollectionWithRole>> {
  const view = await loadOrgView(ctx, await requireMember(ctx, organizationId, userId));
  const roles = new Map<string, Role>();
  for (const collection of view.collections.values()) {
    const role = collectionRoleIn(view, collection);
    if (role) roles.set(collection._id, role);
  }
  const filter =
    view.standing.orgRole === 'admin'
      ? { organizationId, ...(query.nested ? {} : { parentId: null }) }
      : { organizationId, _id: { $in: [...roles.keys()] }, ...(query.nested ? {} : { parentId: null }) };
  const page = await keysetPage(ctx.models.Collection, { filter, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
  return {
    ...page,
    items: page.items.map((collection) => ({ collection, role: roles.get(collection._id) ?? null, defaultLevel: collectionLevelIn(view, collection) })),
  };
}

export async function updateCollection(
  ctx: ContentContext,
  userId: string,
  access: CollectionAccess,
  input: { title?: string; description?: string | null; defaultLevel?: DefaultLevel },
): Promise<CollectionWithRole> {
  requireCollectionRole(access, COLLECTION_ACTION_ROLES.admin, 'change it');
  const set: Record<string, unknown> = { updatedAt: new Date() };
  if (input.title !== undefined) set.title = input.title;
  if (input.description !== undefined) set.description = input.description;
  if (input.defaultLevel !== undefined) set.defaultLevel = input.defaultLevel;
  // Under the collection's lock: a concurrent move of it must not lose these fields (see locks.ts).
  const updated = await withLock(ctx, collectionLock(access.collection._id), () =>
    ctx.models.Collection.findOneAndUpdate({ _id: access.collection._id }, { $set: set }, { returnDocument: 'after' }).lean<CollectionDoc>(),
  );
  if (!updated) throw httpError.notFound('Collection');
  return withRole(ctx, userId, updated);
}

/**
 * DELETE refuses (409) while the collection holds live spaces or collections: deleting
 * silently with its content would bypass the spaces' trash. Spaces already in the trash
 * come back at the organization root if restored. Missing/invisible → 204.
 */
export async function deleteCollection(ctx: ContentContext, userId: string, collectionId: string): Promise<void> {
  let access: CollectionAccess;
  try {
    access = await loadCollectionAccess(ctx, userId, collectionId);
  } catch (error) {
    if ((error as { status?: number }).status === 404) return;
    throw error;
  }
  requireCollectionRole(access, COLLECTION_ACTION_ROLES.admin, 'delete it');
  const [space, child] = await Promise.all([
    ctx.models.Space.exists({ parentId: collectionId, deletedAt: null }),
    ctx.models.Collection.exists({ parentId: collectionId }),
  ]);
  if (space || child) throw httpError.conflict('The collection is not empty: move or delete its spaces and collections first');
  await ctx.models.Collection.deleteOne({ _id: collectionId });
  await ctx.models.Grant.deleteMany({ resourceType: 'collection', resourceId: collectionId });
}

/**
 * Moves a collection under another one (or to the root) and/or next to a sibling.
 * 404 unknown target collection; 400 invalid position or a move into itself or its own
 * descendants; 409 a move that changes nothing.
 */
export async function moveCollection(
  ctx: ContentContext,
  userId: string,
  access: CollectionAccess,
  input: { parent?: string | null; position?: ContentPosition },
): Promise<CollectionWithRole> {
  requireCollectionRole(access, COLLECTION_ACTION_ROLES.admin, 'move it');
  const { collection } = access;
  if (input.parent) {
    if (input.parent === collection._id) throw httpError.badRequest('Invalid body: parent: a collection cannot be moved into itself');
    const target = await loadCollectionAccess(ctx, userId, input.parent);
    if (target.collection.organizationId !== collection.organizationId) throw httpError.notFound('Collection');
    if (target.ancestors.some((c) => c._id === collection._id)) {
      throw httpError.badRequest('Invalid body: parent: a collection cannot be moved into one of its own collections');
    }
  }
  const placement = await resolvePlacement(ctx, {
    organizationId: collection.organizationId,
    movingId: collection._id,
    parent: input.parent,
    position: input.position,
    currentParent: collection.parentId,
  });
  if (placement.parentId && placement.parentId !== input.parent) {
    // The parent came from the sibling: the same cycle rule applies.
    const view = await loadOrgView(ctx, await requireMember(ctx, collection.organizationId, userId));
    if (chainIn(view.collections, placement.parentId).some((c) => c._id === collection._id)) {
      throw httpError.badRequest('Invalid body: position: a collection cannot be moved into one of its own collections');
    }
  }
  if (placement.parentId === collection.parentId && placement.position === undefined) {
    throw httpError.conflict('The collection is already there: the move would change nothing');
  }
  if (placement.parentId !== collection.parentId) await requireCreateIn(ctx, userId, collection.organizationId, placement.parentId);
  const set: Record<string, unknown> = { parentId: placement.parentId, updatedAt: new Date() };
  if (placement.position !== undefined) set.position = placement.position;
  // The checks above (reads, calls to identity) stay outside the lock; under it, the
  // collection must still be where they assumed it was.
  const updated = await withLock(ctx, collectionLock(collection._id), async () => {
    const current = await ctx.models.Collection.findById(collection._id).lean<CollectionDoc>();
    if (!current) throw httpError.notFound('Collection');
    if (current.organizationId !== collection.organizationId || (current.parentId ?? null) !== (collection.parentId ?? null)) {
      throw httpError.conflict('The collection was moved concurrently; retry');
    }
    return ctx.models.Collection.findOneAndUpdate({ _id: collection._id }, { $set: set }, { returnDocument: 'after' }).lean<CollectionDoc>();
  });
  if (!updated) throw httpError.notFound('Collection');
  return withRole(ctx, userId, updated);
}

/**
 * Moves a collection with everything under it (collections, spaces — trashed ones too)
 * to another organization the caller administers; it lands at the root and the grants
 * of the old organization on all of it go. 409 when it is already there.
 */
export async function transferCollection(ctx: ContentContext, userId: string, access: CollectionAccess, organizationId: string): Promise<CollectionWithRole> {
  requireCollectionRole(access, COLLECTION_ACTION_ROLES.admin, 'transfer it');
  const { collection } = access;
  const from = collection.organizationId;
  if (organizationId === from) throw httpError.conflict('The collection already belongs to this organization');
  const target = await getStanding(ctx, organizationId, userId);
  if (!target.member) throw httpError.notFound('Organization');
  if (target.orgRole !== 'admin') throw httpError.forbidden('You need to be an admin of the target organization to transfer a collection to it');
  const view = await loadOrgView(ctx, await requireMember(ctx, from, userId));
  const subtree = [...view.collections.values()].filter((c) => chainIn(view.collections, c._id).some((a) => a._id === collection._id)).map((c) => c._id);
  const spaces = await ctx.models.Space.find({ organizationId: from, parentId: { $in: subtree } })
    .select({ _id: 1 })
    .lean<Array<Pick<SpaceDoc, '_id'>>>();
  // Children first, the root last: until the root moves, a retry finds the same subtree.
  // Not one updateMany: on FerretDB it would rewrite each whole document without isolation
  // and could undo a concurrent PATCH of a space or collection (or be undone by it). Each
  // document is written under its own lock instead, one lock at a time (no lock order to
  // keep), and only if it is still in the subtree of the organization it leaves.
  const spaceIds: string[] = [];
  for (const { _id } of spaces) {
    const moved = await withLock(ctx, spaceLock(_id), () =>
      ctx.models.Space.updateOne({ _id, organizationId: from, parentId: { $in: subtree } }, { $set: { organizationId, updatedAt: new Date() } }),
    );
    if (moved.matchedCount > 0) spaceIds.push(_id);
  }
  const children = subtree.filter((id) => id !== collection._id);
  for (const childId of children) {
    await withLock(ctx, collectionLock(childId), () =>
      ctx.models.Collection.updateOne({ _id: childId, organizationId: from }, { $set: { organizationId, updatedAt: new Date() } }),
    );
  }
  await ctx.models.Grant.deleteMany({ resourceId: { $in: [...subtree, ...spaceIds] } });
  const position = await lastPosition(ctx, organizationId, null);
  const moved = await withLock(ctx, collectionLock(collection._id), () =>
    ctx.models.Collection.findOneAndUpdate(
      { _id: collection._id, organizationId: from },
      { $set: { organizationId, parentId: null, position, updatedAt: new Date() } },
      { returnDocument: 'after' },
    ).lean<CollectionDoc>(),
  );
  if (!moved) throw httpError.notFound('Collection');
  for (const spaceId of spaceIds) {
    await ctx.events.publish(EVENTS.spaceTransferred, { spaceId, fromOrganizationId: from, toOrganizationId: organizationId }, { organizationId });
  }
  return withRole(ctx, userId, moved);
}
