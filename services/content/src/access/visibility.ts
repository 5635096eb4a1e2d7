import { reachedIds, ROLES, type Role } from '@quire/runtime';
import type { QueryFilter } from 'mongoose';
import type { CollectionDoc, ContentContext, SpaceDoc } from '../kernel';
import { collectionLevelFor, collectionRoleFor, spaceLevelFor, spaceRoleFor, subjectClauses } from './access';
import type { GrantDoc } from './grant-store';
import type { MemberStanding } from './membership';
import { resolveDefaultLevel } from './roles';

/**
 * What decides a member's access to every space and collection of one organization:
 * the organization's collections (few compared to spaces) and the member's grants in it.
 * Built with two queries; lists then filter spaces in the database with it and compute
 * each listed item's role in memory with the same rules loadSpaceAccess applies.
 */
export interface OrgView {
  standing: MemberStanding;
  collections: Map<string, CollectionDoc>;
  grants: GrantDoc[];
}

export async function loadOrgView(ctx: ContentContext, standing: MemberStanding): Promise<OrgView> {
  const [collections, grants] = await Promise.all([
    ctx.models.Collection.find({ organizationId: standing.organizationId }).lean<CollectionDoc[]>(),
    standing.member && standing.orgRole !== 'admin'
      ? ctx.models.Grant.find({ organizationId: standing.organizationId, $or: subjectClauses(standing) }).lean<GrantDoc[]>()
      : Promise.resolve([] as GrantDoc[]),
  ]);
  return { standing, collections: new Map(collections.map((c) => [c._id, c])), grants };
}

/** `collectionId` and its ancestors, nearest first, from the view (no queries). */
export function chainIn(collections: Map<string, CollectionDoc>, collectionId: string | null): CollectionDoc[] {
  const chain: CollectionDoc[] = [];
  const seen = new Set<string>();
  let next = collectionId;
  while (next && !seen.has(next)) {
    seen.add(next);
    const collection = collections.get(next);
    if (!collection) break;
    chain.push(collection);
    next = collection.parentId;
  }
  return chain;
}

export function spaceRoleIn(view: OrgView, space: SpaceDoc): Role | null {
  return spaceRoleFor(view.standing, space, chainIn(view.collections, space.parentId), view.grants);
}

export function collectionRoleIn(view: OrgView, collection: CollectionDoc): Role | null {
  return collectionRoleFor(view.standing, collection, chainIn(view.collections, collection.parentId), view.grants);
}

/** The default level in force on a space of the view's organization (no queries; the same for every viewer). */
export function spaceLevelIn(view: Pick<OrgView, 'collections'>, space: SpaceDoc): Role | null {
  return spaceLevelFor(space, chainIn(view.collections, space.parentId));
}

/** The default level in force on a collection of the view's organization (no queries). */
export function collectionLevelIn(view: Pick<OrgView, 'collections'>, collection: CollectionDoc): Role | null {
  return collectionLevelFor(collection, chainIn(view.collections, collection.parentId));
}

/**
 * A database filter matching exactly the organization's live spaces the member has a
 * role on (the same rules as resolveSpaceRole, unfolded into clauses), so lists are
 * keyset pages of one indexed query whatever the page number.
 */
export function visibleSpacesFilter(view: OrgView): QueryFilter<SpaceDoc> {
  const { standing } = view;
  // An installation's user: only among the spaces its installation covers.
  const reached = reachedIds(standing.installationReach, 'spaces');
  const base = { organizationId: standing.organizationId, deletedAt: null, ...(reached ? { _id: { $in: [...reached] } } : {}) };
  if (!standing.member) return { ...base, _id: { $in: [] } };
  if (standing.orgRole === 'admin') return base;
  const grantedResources = new Set(view.grants.map((g) => g.resourceId));
  const grantedSpaces = view.grants.filter((g) => g.resourceType === 'space').map((g) => g.resourceId);
  // Collections under a granted collection: their spaces are reachable through the grant.
  const throughGrant: string[] = [];
  // Collections whose chain resolves to a level: 'inherit' spaces in them get a base role.
  const throughLevel: string[] = [];
  for (const collection of view.collections.values()) {
    const chain = chainIn(view.collections, collection._id);
    if (chain.some((c) => grantedResources.has(c._id))) throughGrant.push(collection._id);
    if (resolveDefaultLevel(chain.map((c) => c.defaultLevel)) !== null) throughLevel.push(collection._id);
  }
  const clauses: Array<QueryFilter<SpaceDoc>> = [];
  if (grantedSpaces.length > 0) clauses.push({ _id: { $in: grantedSpaces } });
  if (throughGrant.length > 0) clauses.push({ parentId: { $in: throughGrant } });
  if (standing.orgRole) {
    clauses.push({ defaultLevel: { $in: [...ROLES] } });
    clauses.push({ defaultLevel: 'inherit', parentId: { $in: [null, ...throughLevel] } });
    if (throughLevel.length > 0) clauses.push({ visibility: 'in-collection', parentId: { $in: throughLevel } });
  }
  if (clauses.length === 0) return { ...base, _id: { $in: [] } };
  return { ...base, $or: clauses } as QueryFilter<SpaceDoc>;
}
