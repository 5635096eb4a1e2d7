import { Router } from 'express';
import { apiUrl, listEnvelope, listQuerySchema, parseInput, principalOf } from '@quire/http';
import type { IdentityContext } from '../domain/context';
import { createOrganization, getVisibleOrganization, listOrganizationsOfUser, organizationsWithOwnedTeam, updateOrganization } from '../domain/organizations';
import { getOwnUser, getVisibleUser } from '../domain/users';
import { membersRouter } from './members-routes';
import { presentOrganization, presentUser } from './presenters';
import { samlRouter } from './saml-routes';
import { createOrganizationBody, organizationParams, updateOrganizationBody, userParams } from './schemas';
import { teamsRouter } from './teams-routes';

/** /v1/user, /v1/users/{userId}, /v1/orgs[/{organizationId}], and the members, teams and SAML routers. */
export function identityRouter(ctx: IdentityContext): Router {
  const router = Router();
  const base = ctx.config.PUBLIC_BASE_URL;

  router.get('/v1/user', async (req, res) => {
    const { userId } = principalOf(req);
    res.json(presentUser(await getOwnUser(ctx, userId), base));
  });

  router.get('/v1/users/:userId', async (req, res) => {
    const caller = principalOf(req);
    const { userId } = parseInput(userParams, req.params, 'params');
    const { user, email } = await getVisibleUser(ctx, caller.userId, userId);
    res.json(presentUser(user, base, { email }));
  });

  router.get('/v1/orgs', async (req, res) => {
    const { userId } = principalOf(req);
    const query = parseInput(listQuerySchema, req.query, 'query');
    const page = await listOrganizationsOfUser(ctx, userId, query);
    const owning = await organizationsWithOwnedTeam(
      ctx,
      userId,
      page.items.map((i) => i.organization._id),
    );
    res.json(
      listEnvelope(
        page.items.map(({ organization, membership }) => presentOrganization(organization, membership, base, owning.has(organization._id))),
        page.count,
        page.next,
      ),
    );
  });

  router.post('/v1/orgs', async (req, res) => {
    const { userId } = principalOf(req);
    const body = parseInput(createOrganizationBody, req.body, 'body');
    const { organization, membership } = await createOrganization(ctx, userId, body);
    res
      .status(201)
      .location(apiUrl(base, `/v1/orgs/${organization._id}`))
      .json(presentOrganization(organization, membership, base));
  });

  router.get('/v1/orgs/:organizationId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const { organization, membership } = await getVisibleOrganization(ctx, userId, organizationId);
    const owning = await organizationsWithOwnedTeam(ctx, userId, [organizationId]);
    res.json(presentOrganization(organization, membership, base, owning.has(organizationId)));
  });

  router.patch('/v1/orgs/:organizationId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const patch = parseInput(updateOrganizationBody, req.body, 'body');
    const { organization, membership } = await updateOrganization(ctx, userId, organizationId, patch);
    const owning = await organizationsWithOwnedTeam(ctx, userId, [organizationId]);
    res.json(presentOrganization(organization, membership, base, owning.has(organizationId)));
  });

  router.use(membersRouter(ctx));
  router.use(teamsRouter(ctx));
  router.use(samlRouter(ctx));
  return router;
}
