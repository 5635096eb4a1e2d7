import { apiUrl, created, listEnvelope, listQuerySchema, route, type Route } from '@quire/http';
import { list, samlLogin, samlProvider, ssoProviderLogins } from '@quire/contract';
import type { IdentityContext } from '../domain/context';
import { createSamlProvider, deleteSamlProvider, getSamlProvider, listSamlProviders, listSsoLogins, updateSamlProvider } from '../domain/saml';
import { completeLogin, serviceMetadata, startLogin } from '../domain/sso';
import { presentSamlProvider } from '../presenters/directory-presenter';
import { acsBody, createSamlProviderBody, updateSamlProviderBody } from './directory-schemas';
import { presentOrganization, presentUser } from '../presenters/organization-presenter';
import { organizationParams, publicSamlParams, samlParams } from './organization-schemas';

/** /v1/orgs/{organizationId}/saml/**, /sso, and the public SAML browser flow /v1/public/saml/**. */
export function samlRoutes(ctx: IdentityContext): Route[] {
  const base = ctx.config.PUBLIC_BASE_URL;

  return [
    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/saml',
      summary: "List an organization's SAML providers",
      response: list(samlProvider),
      params: organizationParams,
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => {
        const page = await listSamlProviders(ctx, caller.userId, params.organizationId, query);
        return listEnvelope(
          page.items.map((view) => presentSamlProvider(view, { baseUrl: base })),
          page.count,
          page.next,
        );
      },
    }),

    route({
      method: 'post',
      path: '/v1/orgs/:organizationId/saml',
      summary: 'Create a SAML provider',
      response: samlProvider,
      status: 201,
      params: organizationParams,
      body: createSamlProviderBody,
      handler: async ({ caller, params, body }) => {
        const provider = presentSamlProvider(await createSamlProvider(ctx, caller.userId, params.organizationId, body), { baseUrl: base });
        return created(provider.urls.location, provider);
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/saml/:samlProviderId',
      summary: 'Get a SAML provider',
      response: samlProvider,
      params: samlParams,
      handler: async ({ caller, params }) =>
        presentSamlProvider(await getSamlProvider(ctx, caller.userId, params.organizationId, params.samlProviderId), { baseUrl: base }),
    }),

    route({
      method: 'patch',
      path: '/v1/orgs/:organizationId/saml/:samlProviderId',
      summary: 'Update a SAML provider',
      response: samlProvider,
      params: samlParams,
      body: updateSamlProviderBody,
      handler: async ({ caller, params, body }) =>
        presentSamlProvider(await updateSamlProvider(ctx, caller.userId, params.organizationId, params.samlProviderId, body), { baseUrl: base }),
    }),

    route({
      method: 'delete',
      path: '/v1/orgs/:organizationId/saml/:samlProviderId',
      summary: 'Delete a SAML provider',
      params: samlParams,
      handler: async ({ caller, params }) => {
        await deleteSamlProvider(ctx, caller.userId, params.organizationId, params.samlProviderId);
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/sso',
      summary: "List the organization's SSO sign-in options",
      response: ssoProviderLogins,
      params: organizationParams,
      handler: async ({ caller, params }) => ({ items: await listSsoLogins(ctx, caller.userId, params.organizationId) }),
    }),

    // The public routes below are reached without an API token: the signed SAML messages
    // authenticate the browser flow, so they never ask for a principal.
    route({
      method: 'get',
      path: '/v1/public/saml/:samlProviderId/start',
      summary: 'Start a SAML sign-in (redirects to the identity provider)',
      status: 302,
      access: 'public',
      params: publicSamlParams,
      // A bare redirect: the Location is the answer, without express's "Found. Redirecting to" text.
      handler: async ({ params, res }) =>
        res
          .status(302)
          .location(await startLogin(ctx, params.samlProviderId))
          .end(),
    }),

    route({
      method: 'get',
      path: '/v1/public/saml/:samlProviderId/metadata',
      summary: "The service provider's SAML metadata",
      produces: 'application/samlmetadata+xml',
      access: 'public',
      params: publicSamlParams,
      handler: async ({ params, res }) => {
        // Made before the media type is set: an unknown provider's error stays a JSON error.
        const metadata = await serviceMetadata(ctx, params.samlProviderId);
        res.type('application/samlmetadata+xml').send(metadata);
      },
    }),

    route({
      method: 'post',
      path: '/v1/public/saml/:samlProviderId/acs',
      summary: 'The assertion consumer service: completes a sign-in and answers an API token',
      response: samlLogin,
      access: 'public',
      params: publicSamlParams,
      body: acsBody,
      consumes: 'application/x-www-form-urlencoded',
      handler: async ({ params, body }) => {
        const login = await completeLogin(ctx, params.samlProviderId, body.SAMLResponse);
        // Quire is an API without browser sessions: the sign-in ends by handing the caller (a
        // CLI or app that opened the start URL) an API token, which every /v1 operation accepts.
        return {
          token: login.token,
          user: presentUser(login.user, { baseUrl: base }),
          organization: presentOrganization(login.organization, { membership: login.membership, baseUrl: base }),
          urls: { location: apiUrl(base, `/v1/orgs/${login.organization._id}`) },
        };
      },
    }),
  ];
}
