import { Router } from 'express';
import { listEnvelope, parseInput, principalOf } from '@quire/http';
import type { IdentityContext } from '../domain/context';
import { listMemberSpaces } from '../domain/member-spaces';
import { getMember, listMembers, makeSsoMember, ping, removeMember, updateMemberRole } from '../domain/members';
import { listMemberTeams } from '../domain/teams';
import { presentMember, presentTeam } from './directory-presenters';
import { memberListQuery, memberSpacesQuery, memberTeamsQuery, updateMemberBody } from './directory-schemas';
import { memberParams, organizationParams } from './schemas';

/** /v1/orgs/{organizationId}/members/** and /ping. */
export function membersRouter(ctx: IdentityContext): Router {
  const router = Router();
  const base = ctx.config.PUBLIC_BASE_URL;

  router.get('/v1/orgs/:organizationId/members', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const query = parseInput(memberListQuery, req.query, 'query');
    const page = await listMembers(ctx, userId, organizationId, query);
    res.json(
      listEnvelope(
        page.items.map((view) => presentMember(view, base)),
        page.count,
        page.next,
      ),
    );
  });

  router.get('/v1/orgs/:organizationId/members/:userId', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, userId } = parseInput(memberParams, req.params, 'params');
    res.json(presentMember(await getMember(ctx, caller.userId, organizationId, userId), base));
  });

  router.patch('/v1/orgs/:organizationId/members/:userId', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, userId } = parseInput(memberParams, req.params, 'params');
    const { role } = parseInput(updateMemberBody, req.body, 'body');
    res.json(presentMember(await updateMemberRole(ctx, caller.userId, organizationId, userId, role), base));
  });

  router.delete('/v1/orgs/:organizationId/members/:userId', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, userId } = parseInput(memberParams, req.params, 'params');
    await removeMember(ctx, caller.userId, organizationId, userId);
    res.status(204).end();
  });

  router.post('/v1/orgs/:organizationId/members/:userId/sso', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, userId } = parseInput(memberParams, req.params, 'params');
    res.json(presentMember(await makeSsoMember(ctx, caller.userId, organizationId, userId), base));
  });

  router.get('/v1/orgs/:organizationId/members/:userId/spaces', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, userId } = parseInput(memberParams, req.params, 'params');
    const query = parseInput(memberSpacesQuery, req.query, 'query');
    const page = await listMemberSpaces(ctx, caller.userId, organizationId, userId, query);
    res.json(listEnvelope(page.items, page.count, page.next));
  });

  router.get('/v1/orgs/:organizationId/members/:userId/teams', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, userId } = parseInput(memberParams, req.params, 'params');
    const query = parseInput(memberTeamsQuery, req.query, 'query');
    const page = await listMemberTeams(ctx, caller.userId, organizationId, userId, query);
    res.json(
      listEnvelope(
        page.items.map((item) => ({ team: presentTeam(item.team), member: { role: item.role } })),
        page.count,
        page.next,
      ),
    );
  });

  router.post('/v1/orgs/:organizationId/ping', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    res.json(await ping(ctx, userId, organizationId));
  });

  return router;
}
