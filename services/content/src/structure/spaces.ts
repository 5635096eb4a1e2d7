import { EVENTS } from '@quire/async';
import { httpError, keysetPage, type KeysetPage } from '@quire/http';
import { documentCacheOf, findByIds, idOfKey, installationScopes, isDuplicateKeyError, newId, roleAtLeast, type Role } from '@quire/runtime';
import {
  COLLECTION_ACTION_ROLES,
  loadCollectionAccess,
  loadOrgView,
  requireCollectionRole,
  requireMember,
  requireOrganizationMembers,
  requireSpaceRole,
  SPACE_ACTION_ROLES,
  spaceLevelIn,
  spaceRoleIn,
  visibleSpacesFilter,
  type OrgView,
  type SpaceAccess,
} from '../access';
import { announce, spaceLock, withLock, type ContentContext, type DefaultLevel, type MergeRulesDoc, type SpaceDoc, type SpaceVisibility } from '../kernel';
import { copyRevisionToSpace, createInitialRevision, discardRevision, loadRevision } from '../revisions';
import { lastPosition, resolvePlacement, type ContentPosition } from './positions';

export interface SpaceWithRole {
  space: SpaceDoc;
  role: Role | null;
  /** The default level in force on the space (Space.defaultLevel), resolved with the role. */
  defaultLevel: Role | null;
}

const TITLE_MAX = 50;

/** Where a new space or a moved one may go: 'create' on the parent collection, or in the organization at the root. */
async function requireCreateIn(ctx: ContentContext, userId: string, organizationId: string, parentId: string | null): Promise<void> {
  if (parentId) {
    const parent = await loadCollectionAccess(ctx, userId, parentId).catch(() => {
      throw httpError.notFound('Collection');
    });
    if (parent.collection.organizationId !== organizationId) throw httpError.notFound('Collection');
    requireCollectionRole(parent, COLLECTION_ACTION_ROLES.create, 'add content to it');
    return;
  }
  const standing = await requireMember(ctx, organizationId, userId);
  if (!roleAtLeast(standing.orgRole, 'create')) throw httpError.forbidden('You need the create role in this organization to add content at its root');
}

function checkVisibility(visibility: SpaceVisibility, parentId: string | null): void {
  if (visibility === 'in-collection' && !parentId) {
    throw httpError.badRequest('Invalid body: visibility: in-collection is only allowed for spaces in a collection');
  }
}

export async function createSpace(
  ctx: ContentContext,
  userId: string,
  organizationId: string,
  input: { title?: string; emoji?: string; parent?: string; visibility?: SpaceVisibility; language?: string; editMode?: 'live' | 'locked' },
): Promise<SpaceWithRole> {
  const parentId = input.parent ?? null;
  const visibility = input.visibility ?? 'private';
  checkVisibility(visibility, parentId);
  await requireCreateIn(ctx, userId, organizationId, parentId);
  const id = newId();
  const revisionId = await createInitialRevision(ctx, { spaceId: id, organizationId, createdBy: userId });
  const now = new Date();
  const created = await ctx.models.Space.create({
    _id: id,
    organizationId,
    title: input.title ?? '',
    emoji: input.emoji ?? '',
    visibility,
    parentId,
    position: await lastPosition(ctx, organizationId, parentId),
    revisionId,
    defaultLevel: 'inherit',
    editMode: input.editMode ?? 'live',
    mergeRules: { type: 'inherit' },
    language: input.language ?? null,
    createdBy: userId,
    createdAt: now,
    updatedAt: now,
    gitSync: false,
  });
  return withRole(ctx, userId, created.toObject() as SpaceDoc);
}

/** A space another service asks for (CreateSpace over gRPC); null = not given. */
export interface ServiceSpaceInput {
  organizationId: string;
  title: string;
  emoji: string;
  language: string | null;
  createdBy: string;
  parentId: string | null;
  /** A revision of a space of the same organization whose content the new space starts with. */
  copyRevisionId: string | null;
  idempotencyKey: string;
}

/** 400 naming the field unless the new space's collection and source revision are of its organization. */
async function checkServiceSpaceSources(ctx: ContentContext, input: ServiceSpaceInput): Promise<void> {
  const { organizationId, parentId, copyRevisionId } = input;
  if (parentId && !(await ctx.models.Collection.exists({ _id: parentId, organizationId }))) {
    throw httpError.badRequest(`Invalid argument: parent_id: no collection ${parentId} in this organization`);
  }
  if (copyRevisionId) {
    const revision = await loadRevision(ctx, copyRevisionId).catch(() => null);
    const source = revision && (await ctx.models.Space.findById(revision.spaceId).select({ organizationId: 1 }).lean<Pick<SpaceDoc, 'organizationId'>>());
    if (source?.organizationId !== organizationId) {
      throw httpError.badRequest(`Invalid argument: copy_revision_id: no revision ${copyRevisionId} in this organization`);
    }
  }
}

/**
 * Creates a private space on behalf of another service, which checked the permissions
 * itself: in `parentId` (a collection of the organization) or at its root, empty or with a
 * copy of `copyRevisionId`. Once per organization and idempotency key: the space's id is
 * derived from them, so the datastore's unique id decides between concurrent calls and
 * asking again answers the space made the first time (created false), even once it is in
 * the trash; a purged one is made anew.
 */
export async function createSpaceForService(ctx: ContentContext, input: ServiceSpaceInput): Promise<{ space: SpaceDoc; created: boolean }> {
  const id = idOfKey(`${input.organizationId}\n${input.idempotencyKey}`);
  const made = await ctx.models.Space.findById(id).lean<SpaceDoc>();
  if (made) return { space: made, created: false };
  await checkServiceSpaceSources(ctx, input);
  const revisionId = input.copyRevisionId
    ? await copyRevisionToSpace(ctx, { revisionId: input.copyRevisionId, toSpaceId: id, createdBy: input.createdBy })
    : await createInitialRevision(ctx, { spaceId: id, organizationId: input.organizationId, createdBy: input.createdBy });
  const now = new Date();
  try {
    const created = await ctx.models.Space.create({
      _id: id,
      organizationId: input.organizationId,
      title: input.title,
      emoji: input.emoji,
      visibility: 'private',
      parentId: input.parentId,
      position: await lastPosition(ctx, input.organizationId, input.parentId),
      revisionId,
      defaultLevel: 'inherit',
      editMode: 'live',
      mergeRules: { type: 'inherit' },
      language: input.language,
      createdBy: input.createdBy,
      createdAt: now,
      updatedAt: now,
      gitSync: false,
    });
    return { space: created.toObject() as SpaceDoc, created: true };
  } catch (error) {
    // A concurrent call with the same key made the space first: this call's revision is nobody's.
    await discardRevision(ctx, revisionId);
    const first = isDuplicateKeyError(error) ? await ctx.models.Space.findById(id).lean<SpaceDoc>() : null;
    if (!first) throw error;
    return { space: first, created: false };
  }
}

/** A space with the viewer's role and its level in force, from a view of its organization (no queries). */
function withRoleIn(view: OrgView, space: SpaceDoc): SpaceWithRole {
  return { space, role: spaceRoleIn(view, space), defaultLevel: spaceLevelIn(view, space) };
}

/** The viewer's role on one space and its level in force (for presenting a space just written: moved, transferred…). */
export async function withRole(ctx: ContentContext, userId: string, space: SpaceDoc): Promise<SpaceWithRole> {
  const view = await loadOrgView(ctx, await requireMember(ctx, space.organizationId, userId));
  return withRoleIn(view, space);
}

/** Live spaces of an organization the caller can access, newest first (keyset on createdAt, _id). */
export async function listOrganizationSpaces(
  ctx: ContentContext,
  userId: string,
  organizationId: string,
  query: { page?: string; limit: number },
): Promise<KeysetPage<SpaceWithRole>> {
  const view = await loadOrgView(ctx, await requireMember(ctx, organizationId, userId));
  const page = await keysetPage(ctx.models.Space, {
    filter: visibleSpacesFilter(view),
    sortField: 'createdAt',
    order: 'desc',
    limit: query.limit,
    page: query.page,
  });
  return { ...page, items: page.items.map((space) => withRoleIn(view, space)) };
}

/** Live spaces directly in a collection the caller can access, in their sibling order. */
export async function listCollectionSpaces(
  ctx: ContentContext,
  userId: string,
  collectionId: string,
  query: { page?: string; limit: number },
): Promise<KeysetPage<SpaceWithRole>> {
  const access = await loadCollectionAccess(ctx, userId, collectionId);
  const view = await loadOrgView(ctx, await requireMember(ctx, access.collection.organizationId, userId));
  const filter = { $and: [visibleSpacesFilter(view), { parentId: collectionId }] };
  const page = await keysetPage(ctx.models.Space, { filter, sortField: 'position', order: 'asc', limit: query.limit, page: query.page });
  return { ...page, items: page.items.map((space) => withRoleIn(view, space)) };
}

/** Spaces by id (for other services), without the deleted ones unless asked for; unknown ids are left out. */
export async function findSpaces(ctx: ContentContext, ids: string[], options: { includeDeleted: boolean }): Promise<SpaceDoc[]> {
  return (await findByIds(ctx.models.Space, ids, { filter: options.includeDeleted ? {} : { deletedAt: null } })) as SpaceDoc[];
}

/** Spaces by id from the document cache, the deleted ones included (the lean lookups other services make per request). */
export async function findCachedSpaces(ctx: ContentContext, ids: string[]): Promise<SpaceDoc[]> {
  return documentCacheOf(ctx.redis, ctx.logger).findByIds<SpaceDoc>(ctx.models.Space, ids);
}

/** A keyset page (by createdAt) of the live spaces a member sees in the view's organization. */
export function listVisibleSpaces(
  ctx: ContentContext,
  view: OrgView,
  query: { order: 'asc' | 'desc'; limit: number; page?: string },
): Promise<KeysetPage<SpaceDoc>> {
  return keysetPage(ctx.models.Space, { filter: visibleSpacesFilter(view), sortField: 'createdAt', order: query.order, limit: query.limit, page: query.page });
}

export interface SpaceUpdate {
  title?: string;
  emoji?: string | null;
  editMode?: 'live' | 'locked';
  defaultLevel?: DefaultLevel;
  language?: string | null;
  mergeRules?: MergeRulesDoc;
  visibility?: SpaceVisibility;
}

/** What an integration's `space:metadata:write` scope covers: a space's name and emoji. */
const SPACE_METADATA: ReadonlySet<string> = new Set(['title', 'emoji']);

/**
 * The role a PATCH needs: a space admin's; except that an integration's installation whose
 * scopes include `space:metadata:write` (it holds the edit role) renames the spaces it may edit.
 */
function updateSpaceRole(input: SpaceUpdate): Role {
  const metadataOnly = Object.entries(input).every(([field, value]) => value === undefined || SPACE_METADATA.has(field));
  return metadataOnly && installationScopes()?.includes('space:metadata:write') ? SPACE_ACTION_ROLES.edit : SPACE_ACTION_ROLES.admin;
}

/** PATCH: managing a space's settings is the space admin's (permissions.admin); see updateSpaceRole. */
export async function updateSpace(ctx: ContentContext, userId: string, access: SpaceAccess, input: SpaceUpdate): Promise<SpaceWithRole> {
  requireSpaceRole(access, updateSpaceRole(input), 'change its settings');
  if (input.visibility) checkVisibility(input.visibility, access.space.parentId);
  // The reviewers a merge rule names are shown with the space: members of its organization only.
  if (input.mergeRules?.type === 'rules') {
    await requireOrganizationMembers(
      ctx,
      access.space.organizationId,
      input.mergeRules.rules.flatMap((rule) => rule.users),
      'mergeRules',
    );
  }
  const set: Record<string, unknown> = {};
  if (input.title !== undefined) set.title = input.title;
  if (input.emoji !== undefined) set.emoji = input.emoji ?? '';
  if (input.editMode !== undefined) set.editMode = input.editMode;
  if (input.defaultLevel !== undefined) set.defaultLevel = input.defaultLevel;
  if (input.language !== undefined) set.language = input.language;
  if (input.mergeRules !== undefined) set.mergeRules = input.mergeRules;
  if (input.visibility !== undefined) set.visibility = input.visibility;
  let previousVisibility: SpaceVisibility | undefined;
  const updated = await withLock(ctx, spaceLock(access.space._id), async () => {
    // Checked again on the space as it is now: a concurrent move may have taken it out of its collection.
    const current = await ctx.models.Space.findOne({ _id: access.space._id, deletedAt: null }).lean<SpaceDoc>();
    if (!current) throw httpError.notFound('Space');
    if (input.visibility) checkVisibility(input.visibility, current.parentId);
    previousVisibility = current.visibility;
    return ctx.models.Space.findOneAndUpdate(
      { _id: current._id, deletedAt: null },
      { $set: { ...set, updatedAt: new Date() } },
      { returnDocument: 'after' },
    ).lean<SpaceDoc>();
  });
  if (!updated) throw httpError.notFound('Space');
  if (previousVisibility && previousVisibility !== updated.visibility) {
    const { organizationId } = updated;
    await announce(ctx, EVENTS.spaceVisibilityUpdated, { organizationId, spaceId: updated._id, previousVisibility, visibility: updated.visibility });
  }
  return withRole(ctx, userId, updated);
}

/** A new space next to the original, with a copy of its current content. */
export async function duplicateSpace(ctx: ContentContext, userId: string, access: SpaceAccess): Promise<SpaceWithRole> {
  const source = access.space;
  await requireCreateIn(ctx, userId, source.organizationId, source.parentId);
  const id = newId();
  const revisionId = await copyRevisionToSpace(ctx, { revisionId: source.revisionId, toSpaceId: id, createdBy: userId });
  const now = new Date();
  const copy = await ctx.models.Space.create({
    _id: id,
    organizationId: source.organizationId,
    title: `${source.title} (copy)`.slice(0, TITLE_MAX),
    emoji: source.emoji,
    visibility: source.visibility,
    parentId: source.parentId,
    position: await lastPosition(ctx, source.organizationId, source.parentId),
    revisionId,
    defaultLevel: source.defaultLevel,
    editMode: source.editMode,
    mergeRules: source.mergeRules,
    language: source.language ?? null,
    createdBy: userId,
    createdAt: now,
    updatedAt: now,
    // The copy does not sync with the source's repository.
    gitSync: false,
  });
  return withRole(ctx, userId, copy.toObject() as SpaceDoc);
}

/** Moves a space to another collection (or the root) and/or next to a sibling. */
export async function moveSpace(
  ctx: ContentContext,
  userId: string,
  access: SpaceAccess,
  input: { parent?: string | null; position?: ContentPosition },
): Promise<SpaceWithRole> {
  requireSpaceRole(access, SPACE_ACTION_ROLES.admin, 'move it');
  const { space } = access;
  const placement = await resolvePlacement(ctx, {
    organizationId: space.organizationId,
    movingId: space._id,
    parent: input.parent,
    position: input.position,
    currentParent: space.parentId,
  });
  if (placement.parentId !== space.parentId) await requireCreateIn(ctx, userId, space.organizationId, placement.parentId);
  // The placement and the permission checks above (reads and calls to identity) stay
  // outside the lock; under it, the space must still be where they assumed it was.
  const updated = await withLock(ctx, spaceLock(space._id), async () => {
    const current = await ctx.models.Space.findOne({ _id: space._id, deletedAt: null }).lean<SpaceDoc>();
    if (!current) throw httpError.notFound('Space');
    if (current.organizationId !== space.organizationId || (current.parentId ?? null) !== (space.parentId ?? null)) {
      throw httpError.conflict('The space was moved concurrently; retry');
    }
    const set: Record<string, unknown> = { parentId: placement.parentId, updatedAt: new Date() };
    if (placement.position !== undefined) set.position = placement.position;
    // A space leaving every collection cannot stay 'in-collection': it becomes private.
    if (!placement.parentId && current.visibility === 'in-collection') set.visibility = 'private';
    return ctx.models.Space.findOneAndUpdate({ _id: space._id, deletedAt: null }, { $set: set }, { returnDocument: 'after' }).lean<SpaceDoc>();
  });
  if (!updated) throw httpError.notFound('Space');
  return withRole(ctx, userId, updated);
}
