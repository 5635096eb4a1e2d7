import { Router, type Request } from 'express';
import { z } from 'zod';
import { fromService, listEnvelope, parseInput, presentUser, principalOf, idSchema } from '@quire/http';
import { loadCollectionAccess, loadSpaceAccess, requireCollectionRole, requireSpaceRole } from '../domain/access';
import type { ContentContext } from '../domain/context';
import { COLLECTION_ACTION_ROLES, SPACE_ACTION_ROLES } from '../domain/roles';
import { inviteToResource, listGrants, removeGrant, teamGrantViews, updateGrant, type GrantResource } from '../domain/grants';
import { getStanding, type MemberStanding } from '../domain/membership';
import type { GrantDoc } from '../db/structure';
import { collectionParams, inviteBody, listQuery, spaceParams, updatePermissionBody } from './structure-schemas';

const subjectParams = z.object({ userId: idSchema.optional(), teamId: idSchema.optional() });

/**
 * /v1/spaces/{spaceId}/permissions/** and /v1/collections/{collectionId}/permissions/**
 * (OpenAPI space-permissions, collection-permissions): explicit roles of users and teams,
 * managed by the resource's admins, feeding the effective role.
 */
export function permissionsRouter(ctx: ContentContext): Router {
  const router = Router();
  const base = ctx.config.PUBLIC_BASE_URL;

  /** The resource, once the caller is known to administer it (404 invisible, 403 not admin). */
  async function adminResource(req: Request, kind: 'spaces' | 'collections'): Promise<GrantResource> {
    const { userId } = principalOf(req);
    if (kind === 'spaces') {
      const { spaceId } = parseInput(spaceParams, { spaceId: req.params.spaceId }, 'params');
      const access = await loadSpaceAccess(ctx, userId, spaceId);
      requireSpaceRole(access, SPACE_ACTION_ROLES.admin, 'manage its permissions');
      return { type: 'space', id: access.space._id, organizationId: access.space.organizationId };
    }
    const { collectionId } = parseInput(collectionParams, { collectionId: req.params.collectionId }, 'params');
    const access = await loadCollectionAccess(ctx, userId, collectionId);
    requireCollectionRole(access, COLLECTION_ACTION_ROLES.admin, 'manage its permissions');
    return { type: 'collection', id: access.collection._id, organizationId: access.collection.organizationId };
  }

  async function presentUserGrants(resource: GrantResource, grants: GrantDoc[]) {
    if (grants.length === 0) return [];
    // Only the organization's members: a grant to anyone else (left from before grants were
    // checked, or a member who left) shows nothing of that user.
    const { users } = await fromService(
      'Identity',
      ctx.clients.identity.batchGetUsers({ ids: grants.map((g) => g.subjectId), organizationId: resource.organizationId }),
    );
    const byId = new Map(users.map((u) => [u.id, u]));
    return grants.flatMap((grant) => {
      const user = byId.get(grant.subjectId);
      if (!user) return [];
      return [
        {
          permission: grant.role,
          user: presentUser({ id: user.id, displayName: user.displayName, email: user.email, photoURL: user.photoUrl || undefined }, base),
        },
      ];
    });
  }

  async function presentTeamGrants(req: Request, resource: GrantResource, grants: GrantDoc[]) {
    const views = await teamGrantViews(ctx, resource.organizationId, grants);
    if (views.length === 0) return [];
    // Already loaded for the admin check: cached for this request, not asked again.
    const caller = await getStanding(ctx, resource.organizationId, principalOf(req).userId);
    return views.map(({ grant, team, spaces }) => ({
      permission: grant.role,
      team: {
        object: 'team' as const,
        id: team.id,
        title: team.title,
        members: team.members,
        spaces,
        createdAt: team.createdAt.toISOString(),
        permissions: teamPermissionsOf(caller, team.id),
      },
    }));
  }

  for (const kind of ['spaces', 'collections'] as const) {
    const root = kind === 'spaces' ? '/v1/spaces/:spaceId/permissions' : '/v1/collections/:collectionId/permissions';

    router.post(root, async (req, res) => {
      const body = parseInput(inviteBody, req.body, 'body');
      const resource = await adminResource(req, kind);
      await inviteToResource(ctx, resource, body);
      res.status(204).end();
    });

    router.get(`${root}/users`, async (req, res) => {
      const query = parseInput(listQuery, req.query, 'query');
      const resource = await adminResource(req, kind);
      const page = await listGrants(ctx, resource, 'user', query);
      res.json(listEnvelope(await presentUserGrants(resource, page.items), page.count, page.next));
    });

    router.get(`${root}/teams`, async (req, res) => {
      const query = parseInput(listQuery, req.query, 'query');
      const resource = await adminResource(req, kind);
      const page = await listGrants(ctx, resource, 'team', query);
      res.json(listEnvelope(await presentTeamGrants(req, resource, page.items), page.count, page.next));
    });

    for (const subject of ['users', 'teams'] as const) {
      const path = `${root}/${subject}/:${subject === 'users' ? 'userId' : 'teamId'}`;
      const subjectType = subject === 'users' ? 'user' : 'team';

      router.patch(path, async (req, res) => {
        const { userId, teamId } = parseInput(subjectParams, req.params, 'params');
        const body = parseInput(updatePermissionBody, req.body, 'body');
        const resource = await adminResource(req, kind);
        await updateGrant(ctx, resource, subjectType, (userId ?? teamId)!, body.role);
        res.status(204).end();
      });

      router.delete(path, async (req, res) => {
        const { userId, teamId } = parseInput(subjectParams, req.params, 'params');
        let resource: GrantResource;
        try {
          resource = await adminResource(req, kind);
        } catch (error) {
          if ((error as { status?: number }).status === 404) return void res.status(204).end();
          throw error;
        }
        await removeGrant(ctx, resource, subjectType, (userId ?? teamId)!);
        res.status(204).end();
      });
    }
  }

  return router;
}

/**
 * The caller's permissions on a team (OpenAPI OrganizationTeam.permissions), by identity's
 * rule as far as content knows the caller: org admins manage every team; members with a
 * role, and the team's own members, see it. Identity also lets a team's owners manage it,
 * but content is not told team roles, so such an owner shows admin false here.
 */
function teamPermissionsOf(caller: MemberStanding, teamId: string): { admin: boolean; view: boolean } {
  if (!caller.member) return { admin: false, view: false };
  return { admin: caller.orgRole === 'admin', view: caller.orgRole !== null || caller.teamIds.includes(teamId) };
}
