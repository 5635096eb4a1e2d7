import { apiUrl, created, listEnvelope, listQuerySchema, route, type Route } from '@quire/http';
import { list, organization, user } from '@quire/contract';
import type { IdentityContext } from '../domain/context';
import { createOrganization, getVisibleOrganization, listOrganizationsOfUser, organizationsWithOwnedTeam, updateOrganization } from '../domain/organizations';
import { getOwnUser, getVisibleUser } from '../domain/users';
import { presentOrganization, presentUser } from '../presenters/organization-presenter';
import { createOrganizationBody, organizationParams, updateOrganizationBody, userParams } from './organization-schemas';

/** /v1/user, /v1/users/{userId}, /v1/orgs[/{organizationId}]. */
export function organizationRoutes(ctx: IdentityContext): Route[] {
  const base = ctx.config.PUBLIC_BASE_URL;
  const withOwnedTeams = async (userId: string, organizationId: string) =>
    (await organizationsWithOwnedTeam(ctx, userId, [organizationId])).has(organizationId);

  return [
    route({
      method: 'get',
      path: '/v1/user',
      summary: 'Get the authenticated user',
      response: user,
      handler: async ({ caller }) => {
        const user = await getOwnUser(ctx, caller.userId);
        // An installation's user has no e-mail.
        return presentUser(user, { baseUrl: base, email: user.kind !== 'installation' });
      },
    }),

    route({
      method: 'get',
      path: '/v1/users/:userId',
      summary: 'Get a user by id',
      response: user,
      params: userParams,
      handler: async ({ caller, params }) => {
        const { user, email } = await getVisibleUser(ctx, caller.userId, params.userId);
        return presentUser(user, { baseUrl: base, email });
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs',
      summary: "List the caller's organizations",
      response: list(organization),
      query: listQuerySchema,
      handler: async ({ caller, query }) => {
        const page = await listOrganizationsOfUser(ctx, caller.userId, query);
        const owning = await organizationsWithOwnedTeam(
          ctx,
          caller.userId,
          page.items.map((i) => i.organization._id),
        );
        return listEnvelope(
          page.items.map(({ organization, membership }) =>
            presentOrganization(organization, { membership, baseUrl: base, ownsTeam: owning.has(organization._id) }),
          ),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'post',
      path: '/v1/orgs',
      summary: 'Create an organization',
      response: organization,
      status: 201,
      body: createOrganizationBody,
      handler: async ({ caller, body }) => {
        const { organization, membership } = await createOrganization(ctx, caller.userId, body);
        return created(apiUrl(base, `/v1/orgs/${organization._id}`), presentOrganization(organization, { membership, baseUrl: base }));
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId',
      summary: 'Get an organization',
      response: organization,
      params: organizationParams,
      handler: async ({ caller, params: { organizationId } }) => {
        const { organization, membership } = await getVisibleOrganization(ctx, caller.userId, organizationId);
        return presentOrganization(organization, { membership, baseUrl: base, ownsTeam: await withOwnedTeams(caller.userId, organizationId) });
      },
    }),

    route({
      method: 'patch',
      path: '/v1/orgs/:organizationId',
      summary: 'Update an organization',
      response: organization,
      params: organizationParams,
      body: updateOrganizationBody,
      handler: async ({ caller, params: { organizationId }, body }) => {
        const { organization, membership } = await updateOrganization(ctx, caller.userId, organizationId, body);
        return presentOrganization(organization, { membership, baseUrl: base, ownsTeam: await withOwnedTeams(caller.userId, organizationId) });
      },
    }),
  ];
}
