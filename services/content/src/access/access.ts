import { httpError } from '@quire/http';
import { documentCacheOf, reaches, roleAtLeast, type Role } from '@quire/runtime';
import type { CollectionDoc, ContentContext, SpaceDoc } from '../kernel';
import type { GrantDoc } from './grant-store';
import { getStanding, type MemberStanding } from './membership';
import { defaultLevelInForce, resolveEffectiveRole, resolveSpaceRole } from './roles';

/**
 * The caller's standing on one space: the one place every space operation asks.
 * (Contract shared by the structure and the revisions code of this service.)
 */
export interface SpaceAccess {
  space: SpaceDoc;
  /** Effective role (design.md §4). Callers without any role never get a SpaceAccess: they get a 404. */
  role: Role;
  /** The caller's role in the space's organization (null = guest or not a member). */
  orgRole: Role | null;
  /** The default level in force on the space (over its collection chain; see defaultLevelInForce). */
  defaultLevel: Role | null;
}

export interface CollectionAccess {
  collection: CollectionDoc;
  role: Role;
  orgRole: Role | null;
  /** The collection's ancestors, nearest first. */
  ancestors: CollectionDoc[];
  /** The default level in force on the collection (over its ancestors; see defaultLevelInForce). */
  defaultLevel: Role | null;
}

const MAX_DEPTH = 32;

/** The collection `parentId` and its ancestors, nearest first (a corrupt cycle stops the walk). */
export async function loadCollectionChain(ctx: ContentContext, parentId: string | null): Promise<CollectionDoc[]> {
  const chain: CollectionDoc[] = [];
  const seen = new Set<string>();
  let next = parentId;
  while (next && !seen.has(next) && chain.length < MAX_DEPTH) {
    seen.add(next);
    const collection = await ctx.models.Collection.findById(next).lean<CollectionDoc>();
    if (!collection) break;
    chain.push(collection);
    next = collection.parentId;
  }
  return chain;
}

/**
 * Grants held by the member (directly or through a team) on any of `resourceIds`. One resource
 * and no team (the common case) is a filter of top-level equalities only: the shape FerretDB
 * hands to its indexes instead of reading the whole collection.
 */
export async function grantsOf(ctx: ContentContext, standing: MemberStanding, resourceIds: string[]): Promise<GrantDoc[]> {
  if (!standing.member || resourceIds.length === 0) return [];
  const clauses = subjectClauses(standing);
  // Asked on every access check; cached until the grants collection is written (see DocumentCache).
  const key = JSON.stringify([resourceIds, standing.userId, standing.teamIds]);
  return documentCacheOf(ctx.redis, ctx.logger).query(ctx.models.Grant, key, () =>
    ctx.models.Grant.find({
      resourceId: resourceIds.length === 1 ? resourceIds[0] : { $in: resourceIds },
      ...(clauses.length === 1 ? clauses[0] : { $or: clauses }),
    }).lean<GrantDoc[]>(),
  );
}

/** Matches grants to the member or to one of their teams. */
export function subjectClauses(standing: MemberStanding): Array<Record<string, unknown>> {
  const clauses: Array<Record<string, unknown>> = [{ subjectType: 'user', subjectId: standing.userId }];
  if (standing.teamIds.length > 0) clauses.push({ subjectType: 'team', subjectId: { $in: standing.teamIds } });
  return clauses;
}

/** The member's effective role on a space whose collection chain is known. */
export function spaceRoleFor(standing: MemberStanding, space: SpaceDoc, chain: CollectionDoc[], grants: GrantDoc[]): Role | null {
  // An installation acts only on the spaces its installation covers: the others are as invisible to it as to an outsider.
  if (!reaches(standing.installationReach, 'spaces', space._id)) return null;
  const relevant = new Set([space._id, ...chain.map((c) => c._id)]);
  return resolveSpaceRole({
    standing,
    spaceLevel: space.defaultLevel,
    visibility: space.visibility,
    chainLevels: chain.map((c) => c.defaultLevel),
    grants: grants.filter((g) => relevant.has(g.resourceId)).map((g) => g.role),
  });
}

/** The member's effective role on a collection with its ancestors (nearest first). */
export function collectionRoleFor(standing: MemberStanding, collection: CollectionDoc, ancestors: CollectionDoc[], grants: GrantDoc[]): Role | null {
  const chain = [collection, ...ancestors];
  const relevant = new Set(chain.map((c) => c._id));
  return resolveEffectiveRole({
    standing,
    levels: chain.map((c) => c.defaultLevel),
    grants: grants.filter((g) => relevant.has(g.resourceId)).map((g) => g.role),
  });
}

/** The default level in force on a space whose collection chain (nearest first) is known. */
export function spaceLevelFor(space: SpaceDoc, chain: CollectionDoc[]): Role | null {
  return defaultLevelInForce([space.defaultLevel, ...chain.map((c) => c.defaultLevel)]);
}

/** The default level in force on a collection with its ancestors (nearest first). */
export function collectionLevelFor(collection: CollectionDoc, ancestors: CollectionDoc[]): Role | null {
  return defaultLevelInForce([collection, ...ancestors].map((c) => c.defaultLevel));
}

/** Loads a space the caller may see; 404 when it is missing, deleted (unless asked for) or invisible to them. */
export async function loadSpaceAccess(
  ctx: ContentContext,
  userId: string,
  spaceId: string,
  options: { includeDeleted?: boolean; /** a read that may use the document cache (never before a write) */ cached?: boolean } = {},
): Promise<SpaceAccess> {
  const space = options.cached
    ? await documentCacheOf(ctx.redis, ctx.logger).findById<SpaceDoc>(ctx.models.Space, spaceId)
    : await ctx.models.Space.findById(spaceId).lean<SpaceDoc>();
  if (!space || (space.deletedAt && !options.includeDeleted)) throw httpError.notFound('Space');
  const [standing, chain] = await Promise.all([getStanding(ctx, space.organizationId, userId), loadCollectionChain(ctx, space.parentId)]);
  // Grants only add to a role: one who is admin without them (organization admins) needs no lookup.
  const withoutGrants = spaceRoleFor(standing, space, chain, []);
  const grants = withoutGrants === 'admin' ? [] : await grantsOf(ctx, standing, [space._id, ...chain.map((c) => c._id)]);
  const role = spaceRoleFor(standing, space, chain, grants);
  if (!role) throw httpError.notFound('Space');
  return { space, role, orgRole: standing.orgRole, defaultLevel: spaceLevelFor(space, chain) };
}

/** 403 naming `action` unless the caller's effective role is at least `minimum`. */
export function requireSpaceRole(access: SpaceAccess, minimum: Role, action: string): void {
  if (!roleAtLeast(access.role, minimum)) {
    throw httpError.forbidden(`You need the ${minimum} role on this space to ${action} (you have ${access.role})`);
  }
}

/** Loads a collection the caller may see; 404 when it is missing or invisible to them. */
export async function loadCollectionAccess(ctx: ContentContext, userId: string, collectionId: string): Promise<CollectionAccess> {
  const collection = await ctx.models.Collection.findById(collectionId).lean<CollectionDoc>();
  if (!collection) throw httpError.notFound('Collection');
  const [standing, ancestors] = await Promise.all([getStanding(ctx, collection.organizationId, userId), loadCollectionChain(ctx, collection.parentId)]);
  const grants = await grantsOf(ctx, standing, [collection._id, ...ancestors.map((c) => c._id)]);
  const role = collectionRoleFor(standing, collection, ancestors, grants);
  if (!role) throw httpError.notFound('Collection');
  return { collection, role, orgRole: standing.orgRole, ancestors, defaultLevel: collectionLevelFor(collection, ancestors) };
}

export function requireCollectionRole(access: CollectionAccess, minimum: Role, action: string): void {
  if (!roleAtLeast(access.role, minimum)) {
    throw httpError.forbidden(`You need the ${minimum} role on this collection to ${action} (you have ${access.role})`);
  }
}

/** The caller's standing in an organization; 404 (the organization is invisible) for non-members. */
export async function requireMember(ctx: ContentContext, organizationId: string, userId: string): Promise<MemberStanding> {
  const standing = await getStanding(ctx, organizationId, userId);
  if (!standing.member) throw httpError.notFound('Organization');
  return standing;
}
