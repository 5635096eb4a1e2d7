import express, { Router } from 'express';
import { apiUrl, listEnvelope, listQuerySchema, parseInput, principalOf } from '@quire/http';
import type { IdentityContext } from '../domain/context';
import { createSamlProvider, deleteSamlProvider, getSamlProvider, listSamlProviders, listSsoLogins, updateSamlProvider } from '../domain/saml';
import { completeLogin, serviceMetadata, startLogin } from '../domain/sso';
import { presentSamlProvider } from './directory-presenters';
import { acsBody, createSamlProviderBody, updateSamlProviderBody } from './directory-schemas';
import { presentOrganization, presentUser } from './presenters';
import { organizationParams, publicSamlParams, samlParams } from './schemas';

/** /v1/orgs/{organizationId}/saml/**, /sso, and the public SAML browser flow /v1/public/saml/**. */
export function samlRouter(ctx: IdentityContext): Router {
  const router = Router();
  const base = ctx.config.PUBLIC_BASE_URL;

  router.get('/v1/orgs/:organizationId/saml', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const query = parseInput(listQuerySchema, req.query, 'query');
    const page = await listSamlProviders(ctx, userId, organizationId, query);
    res.json(
      listEnvelope(
        page.items.map((view) => presentSamlProvider(view, base)),
        page.count,
        page.next,
      ),
    );
  });

  router.post('/v1/orgs/:organizationId/saml', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    const body = parseInput(createSamlProviderBody, req.body, 'body');
    const created = presentSamlProvider(await createSamlProvider(ctx, userId, organizationId, body), base);
    res.status(201).location(created.urls.location).json(created);
  });

  router.get('/v1/orgs/:organizationId/saml/:samlProviderId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, samlProviderId } = parseInput(samlParams, req.params, 'params');
    res.json(presentSamlProvider(await getSamlProvider(ctx, userId, organizationId, samlProviderId), base));
  });

  router.patch('/v1/orgs/:organizationId/saml/:samlProviderId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, samlProviderId } = parseInput(samlParams, req.params, 'params');
    const body = parseInput(updateSamlProviderBody, req.body, 'body');
    res.json(presentSamlProvider(await updateSamlProvider(ctx, userId, organizationId, samlProviderId, body), base));
  });

  router.delete('/v1/orgs/:organizationId/saml/:samlProviderId', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId, samlProviderId } = parseInput(samlParams, req.params, 'params');
    await deleteSamlProvider(ctx, userId, organizationId, samlProviderId);
    res.status(204).end();
  });

  router.get('/v1/orgs/:organizationId/sso', async (req, res) => {
    const { userId } = principalOf(req);
    const { organizationId } = parseInput(organizationParams, req.params, 'params');
    res.json({ items: await listSsoLogins(ctx, userId, organizationId) });
  });

  // The public routes below are reached without an API token: the signed SAML messages
  // authenticate the browser flow, so they never ask for a principal.
  router.get('/v1/public/saml/:samlProviderId/start', async (req, res) => {
    const { samlProviderId } = parseInput(publicSamlParams, req.params, 'params');
    res.redirect(302, await startLogin(ctx, samlProviderId));
  });

  router.get('/v1/public/saml/:samlProviderId/metadata', async (req, res) => {
    const { samlProviderId } = parseInput(publicSamlParams, req.params, 'params');
    res.type('application/samlmetadata+xml').send(await serviceMetadata(ctx, samlProviderId));
  });

  router.post('/v1/public/saml/:samlProviderId/acs', express.urlencoded({ extended: false, limit: '2mb' }), async (req, res) => {
    const { samlProviderId } = parseInput(publicSamlParams, req.params, 'params');
    const { SAMLResponse } = parseInput(acsBody, req.body, 'body');
    const login = await completeLogin(ctx, samlProviderId, SAMLResponse);
    // Quire is an API without browser sessions: the sign-in ends by handing the caller (a
    // CLI or app that opened the start URL) an API token, which every /v1 operation accepts.
    res.json({
      token: login.token,
      user: presentUser(login.user, base),
      organization: presentOrganization(login.organization, login.membership, base),
      urls: { location: apiUrl(base, `/v1/orgs/${login.organization._id}`) },
    });
  });

  return router;
}
