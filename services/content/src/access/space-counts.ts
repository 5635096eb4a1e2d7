import type { Role } from '@quire/runtime';
import type { CollectionDoc, ContentContext, SpaceDoc } from '../kernel';
import type { GrantDoc } from './grant-store';
import type { MemberStanding } from './membership';
import { chainIn, spaceRoleIn, type OrgView } from './visibility';

/** Whose spaces to count: a team (its own grants only) or a member (everything they can reach). */
export type SpaceCountSubject =
  { organizationId: string; teamId: string } | { organizationId: string; userId: string; orgRole: Role | null; teamIds: string[] };

/**
 * How many live spaces each subject has access to, in the subjects' order. Everything the
 * counts depend on comes from three queries however many subjects and organizations there
 * are (collections, projected live spaces, grants); the rest is computed in memory with
 * the same rules loadSpaceAccess applies. Shared by gRPC BatchCountSpaces (identity's
 * member and team counts) and content's own team permission lists.
 */
export async function countSpaces(ctx: ContentContext, subjects: SpaceCountSubject[]): Promise<number[]> {
  if (subjects.length === 0) return [];
  const organizationIds = [...new Set(subjects.map((s) => s.organizationId))];
  const userIds = [...new Set(subjects.flatMap((s) => ('userId' in s ? [s.userId] : [])))];
  const teamIds = [...new Set(subjects.flatMap((s) => ('teamId' in s ? [s.teamId] : s.teamIds)))];
  const [collections, spaces, grants] = await Promise.all([
    ctx.models.Collection.find({ organizationId: { $in: organizationIds } }).lean<CollectionDoc[]>(),
    ctx.models.Space.find({ organizationId: { $in: organizationIds }, deletedAt: null })
      .select({ _id: 1, organizationId: 1, parentId: 1, defaultLevel: 1, visibility: 1 })
      .lean<SpaceDoc[]>(),
    ctx.models.Grant.find({
      organizationId: { $in: organizationIds },
      $or: [
        { subjectType: 'user', subjectId: { $in: userIds } },
        { subjectType: 'team', subjectId: { $in: teamIds } },
      ],
    }).lean<GrantDoc[]>(),
  ]);
  const collectionsOf = groupBy(collections, (c) => c.organizationId);
  const spacesOf = groupBy(spaces, (s) => s.organizationId);
  const grantsOf = groupBy(grants, (g) => g.organizationId);
  const maps = new Map<string, Map<string, CollectionDoc>>();
  const collectionMap = (organizationId: string) => {
    let map = maps.get(organizationId);
    if (!map) maps.set(organizationId, (map = new Map((collectionsOf.get(organizationId) ?? []).map((c) => [c._id, c]))));
    return map;
  };

  return subjects.map((subject) => {
    const orgSpaces = spacesOf.get(subject.organizationId) ?? [];
    const orgGrants = grantsOf.get(subject.organizationId) ?? [];
    const collectionsById = collectionMap(subject.organizationId);
    if ('teamId' in subject) {
      const granted = new Set(orgGrants.filter((g) => g.subjectType === 'team' && g.subjectId === subject.teamId).map((g) => g.resourceId));
      if (granted.size === 0) return 0;
      return orgSpaces.filter((s) => granted.has(s._id) || chainIn(collectionsById, s.parentId).some((c) => granted.has(c._id))).length;
    }
    const standing: MemberStanding = {
      organizationId: subject.organizationId,
      userId: subject.userId,
      member: true,
      orgRole: subject.orgRole,
      teamIds: subject.teamIds,
    };
    if (standing.orgRole === 'admin') return orgSpaces.length;
    const teams = new Set(standing.teamIds);
    const view: OrgView = {
      standing,
      collections: collectionsById,
      grants: orgGrants.filter((g) => (g.subjectType === 'user' ? g.subjectId === standing.userId : teams.has(g.subjectId))),
    };
    return orgSpaces.filter((s) => spaceRoleIn(view, s) !== null).length;
  });
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
