import { Router } from 'express';
import { listEnvelope, listQuerySchema, parseInput, principalOf } from '@quire/http';
import type { IdentityContext } from '../domain/context';
import {
  createTeam,
  deleteTeam,
  getTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  renameTeam,
  setTeamMemberRole,
  updateTeamMembers,
} from '../domain/teams';
import { presentTeam, presentTeamMember } from './directory-presenters';
import { createTeamBody, teamListQuery, teamMemberRoleBody, updateTeamBody, updateTeamMembersBody } from './directory-schemas';
import { organizationParams, teamMemberParams, teamParams } from './schemas';

/** /v1/orgs/{organizationId}/teams/**. */
export function teamsRouter(ctx: IdentityContext): Router {
  const router = Router();
  const base = ctx.config.PUBLIC_BASE_URL;

  router.get('/v1/orgs/:organizationId/teams', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const query = parseInput(teamListQuery, req.query, 'query');
    const page = await listTeams(ctx, userId, organizationId, query);
    res.json(listEnvelope(page.items.map(presentTeam), page.count, page.next));
  });

  router.put('/v1/orgs/:organizationId/teams', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const body = parseInput(createTeamBody, req.body, 'body');
    res.status(201).json(presentTeam(await createTeam(ctx, userId, organizationId, body)));
  });

  router.get('/v1/orgs/:organizationId/teams/:teamId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, teamId } = parseInput(teamParams, req.params, 'params');
    res.json(presentTeam(await getTeam(ctx, userId, organizationId, teamId)));
  });

  router.patch('/v1/orgs/:organizationId/teams/:teamId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, teamId } = parseInput(teamParams, req.params, 'params');
    const { title } = parseInput(updateTeamBody, req.body, 'body');
    res.json(presentTeam(await renameTeam(ctx, userId, organizationId, teamId, title)));
  });

  router.delete('/v1/orgs/:organizationId/teams/:teamId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, teamId } = parseInput(teamParams, req.params, 'params');
    await deleteTeam(ctx, userId, organizationId, teamId);
    res.status(204).end();
  });

  router.get('/v1/orgs/:organizationId/teams/:teamId/members', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, teamId } = parseInput(teamParams, req.params, 'params');
    const query = parseInput(listQuerySchema, req.query, 'query');
    const page = await listTeamMembers(ctx, userId, organizationId, teamId, query);
    res.json(
      listEnvelope(
        page.items.map((item) => presentTeamMember(item, base)),
        page.count,
        page.next,
      ),
    );
  });

  router.put('/v1/orgs/:organizationId/teams/:teamId/members', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, teamId } = parseInput(teamParams, req.params, 'params');
    const body = parseInput(updateTeamMembersBody, req.body, 'body');
    await updateTeamMembers(ctx, userId, organizationId, teamId, body);
    res.status(204).end();
  });

  router.put('/v1/orgs/:organizationId/teams/:teamId/members/:userId', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, teamId, userId } = parseInput(teamMemberParams, req.params, 'params');
    const { role } = parseInput(teamMemberRoleBody, req.body, 'body');
    await setTeamMemberRole(ctx, caller.userId, organizationId, teamId, userId, role);
    res.status(204).end();
  });

  router.delete('/v1/orgs/:organizationId/teams/:teamId/members/:userId', async (req, res) => {
    const caller = principalOf(req);
    const { organizationId, teamId, userId } = parseInput(teamMemberParams, req.params, 'params');
    await removeTeamMember(ctx, caller.userId, organizationId, teamId, userId);
    res.status(204).end();
  });

  return router;
}
