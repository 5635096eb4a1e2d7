import { integrationInstallation, integrationSiteInstallation, integrationSpaceInstallation, list } from '@quire/contract';
import { apiUrl, created, listEnvelope, loadOrgAccess, route, type Route } from '@quire/http';
import type { Principal } from '@quire/runtime';
import type { InstallationDoc, IntegrationDoc, TargetInstallationDoc } from '../db/models';
import type { IntegrationsContext } from '../domain/context';
import {
  countSpaceInstallations,
  findInstallation,
  installationStanding,
  installIntegration,
  installOnTarget,
  listInstallations,
  listInstallationTargets,
  listIntegrationTargets,
  loadInstallation,
  loadIntegrationView,
  loadTargetInstallation,
  requireInstallableOn,
  requireInstallingAdmin,
  requireTargetInstaller,
  uninstallFromTarget,
  uninstallIntegration,
  updateInstallation,
  updateTargetInstallation,
  type TargetKind,
} from '../domain/installations';
import { lookUpTargets, type TargetObject } from '../domain/targets';
import { installationPath, presentInstallation, presentTargetInstallation, targetInstallationPath } from '../presenters/installation-presenter';
import {
  extendedQuery,
  installationParams,
  installBody,
  installOnSiteBody,
  installOnSpaceBody,
  listInstallationsQuery,
  listInstallationTargetsQuery,
  listTargetsQuery,
  siteInstallationParams,
  spaceInstallationParams,
  updateInstallationBody,
  updateTargetInstallationBody,
} from './installation-schemas';
import { INTEGRATION_PATH as INTEGRATION, integrationParams } from './integration-schemas';

const INSTALLATIONS = `${INTEGRATION}/installations`;
const INSTALLATION = `${INSTALLATIONS}/:installationId`;

/** A space's or site's object as the caller sees it, when they may see it (its `permissions.view`); else nothing (its id is shown). */
const visibleObject = (object: TargetObject['rest']) => (object?.permissions?.view === true ? object : undefined);

/**
 * Installations of an integration (spec "### Integrations", GitBook's installation operations):
 * on an organization, and under it on its spaces and sites.
 */
export function installationRoutes(ctx: IntegrationsContext): Route[] {
  const { config } = ctx;

  const presentInstallations = async (integration: IntegrationDoc, installations: InstallationDoc[]) => {
    const counts = await countSpaceInstallations(
      ctx,
      installations.map((installation) => installation._id),
    );
    return installations.map((installation) => presentInstallation(installation, { integration, spaces: counts.get(installation._id) ?? 0, config }));
  };
  const presentOne = async (integration: IntegrationDoc, installation: InstallationDoc) => (await presentInstallations(integration, [installation]))[0];

  /**
   * Entries of one page; with `extended`, each target's object (one batch call for the page) when
   * the caller may see it, else its id: the integration's publisher sees no installer's space or site.
   */
  const presentTargets = async (targets: TargetInstallationDoc[], kind: TargetKind, extended: boolean, caller: Principal) => {
    const objects = extended
      ? await lookUpTargets(
          ctx,
          kind,
          targets.map((target) => target.targetId),
          caller.userId,
        )
      : undefined;
    return targets.map((target) => presentTargetInstallation(target, { object: visibleObject(objects?.get(target.targetId)?.rest), config }));
  };

  /** The integration (404 as the catalogue says) and its installation (404 when none). */
  const viewAndInstallation = async (caller: Principal, params: { integrationName: string; installationId: string }) => {
    const view = await loadIntegrationView(ctx, caller, params.integrationName);
    return { view, installation: await loadInstallation(ctx, params.integrationName, params.installationId) };
  };
  /** The integration, the installation and the caller's standing on it (404/403 as installationStanding says). */
  const installationOfRequest = async (caller: Principal, params: { integrationName: string; installationId: string }) => {
    const { view, installation } = await viewAndInstallation(caller, params);
    return { view, installation, standing: await installationStanding(ctx, caller.userId, view, installation.organizationId) };
  };

  const targetRoutes = (kind: TargetKind): Route[] => {
    const plural = kind === 'space' ? 'spaces' : 'sites';
    const collection = `${INSTALLATION}/${plural}`;
    const item = `${collection}/:${kind}Id`;
    const entry = kind === 'space' ? integrationSpaceInstallation : integrationSiteInstallation;
    const itemParams = kind === 'space' ? spaceInstallationParams : siteInstallationParams;
    const targetIdOf = (params: { spaceId?: string; siteId?: string }) => (kind === 'space' ? params.spaceId : params.siteId)!;
    const presentOneTarget = async (target: TargetInstallationDoc, extended: boolean, caller: Principal) =>
      (await presentTargets([target], kind, extended, caller))[0];
    const lookUpOne = async (targetId: string, caller: Principal) => (await lookUpTargets(ctx, kind, [targetId], caller.userId)).get(targetId);
    /** The integration, the installation and the target, once the caller may install there (requireTargetInstaller). */
    const targetInstallerOf = async (caller: Principal, params: { integrationName: string; installationId: string }, targetId: string, action: string) => {
      const { view, installation } = await viewAndInstallation(caller, params);
      const found = await lookUpOne(targetId, caller);
      await requireTargetInstaller(ctx, caller.userId, view, installation, kind, found, action);
      return { view, installation, found };
    };

    return [
      route({
        method: 'get',
        path: collection,
        summary: `List the ${plural} an installation is installed on`,
        response: list(entry),
        params: installationParams,
        query: listInstallationTargetsQuery,
        handler: async ({ caller, params, query }) => {
          const { installation } = await installationOfRequest(caller, params);
          const page = await listInstallationTargets(ctx, installation, kind, query);
          return listEnvelope(await presentTargets(page.items, kind, query.extended, caller), page.count, page.next);
        },
      }),

      route({
        method: 'post',
        path: collection,
        summary: `Install an integration on a ${kind} of the installation's organization`,
        response: entry,
        status: 201,
        params: installationParams,
        query: extendedQuery,
        body: kind === 'space' ? installOnSpaceBody : installOnSiteBody,
        handler: async ({ caller, params, query, body }) => {
          const targetId = 'space' in body ? body.space : body.siteId;
          const { view, installation, found } = await targetInstallerOf(caller, params, targetId, `install integrations on ${plural}`);
          const field = kind === 'space' ? 'space' : 'siteId';
          requireInstallableOn(view.integration, kind, field);
          const { target } = await installOnTarget(ctx, view.integration, installation, { kind, id: targetId, organizationId: found?.organizationId });
          const presented = presentTargetInstallation(target, { object: query.extended ? visibleObject(found?.rest) : undefined, config });
          return created(apiUrl(config.PUBLIC_BASE_URL, targetInstallationPath(target)), presented);
        },
      }),

      route({
        method: 'get',
        path: item,
        summary: `Get an integration's installation on a ${kind}`,
        response: entry,
        params: itemParams,
        query: extendedQuery,
        handler: async ({ caller, params, query }) => {
          const { installation } = await installationOfRequest(caller, params);
          const target = await loadTargetInstallation(ctx, installation, kind, targetIdOf(params));
          return presentOneTarget(target, query.extended, caller);
        },
      }),

      route({
        method: 'patch',
        path: item,
        summary: `Update an integration's installation on a ${kind} (configuration, external ids)`,
        response: entry,
        params: itemParams,
        query: extendedQuery,
        body: updateTargetInstallationBody,
        handler: async ({ caller, params, query, body }) => {
          const { view, installation } = await installationOfRequest(caller, params);
          const target = await loadTargetInstallation(ctx, installation, kind, targetIdOf(params));
          const updated = await updateTargetInstallation(ctx, view.integration, target, body);
          return presentOneTarget(updated, query.extended, caller);
        },
      }),

      // 204 also when it was not installed there, like any DELETE.
      route({
        method: 'delete',
        path: item,
        summary: `Uninstall an integration from a ${kind}`,
        params: itemParams,
        handler: async ({ caller, params }) => {
          const { view, installation } = await targetInstallerOf(caller, params, targetIdOf(params), `uninstall integrations from ${plural}`);
          await uninstallFromTarget(ctx, view.integration, installation, kind, targetIdOf(params));
        },
      }),
    ];
  };

  const integrationTargetsRoute = (kind: TargetKind): Route => {
    const plural = kind === 'space' ? 'spaces' : 'sites';
    return route({
      method: 'get',
      path: `${INTEGRATION}/${plural}`,
      summary: `List the ${plural} an integration is installed on`,
      response: list(kind === 'space' ? integrationSpaceInstallation : integrationSiteInstallation),
      params: integrationParams,
      query: listTargetsQuery,
      handler: async ({ caller, params, query }) => {
        const view = await loadIntegrationView(ctx, caller, params.integrationName);
        const page = await listIntegrationTargets(ctx, caller.userId, view, kind, query);
        return listEnvelope(await presentTargets(page.items, kind, query.extended, caller), page.count, page.next);
      },
    });
  };

  return [
    route({
      method: 'get',
      path: INSTALLATIONS,
      summary: "List an integration's installations (all of them for its owner's admins, else the caller's organizations')",
      response: list(integrationInstallation),
      params: integrationParams,
      query: listInstallationsQuery,
      handler: async ({ caller, params, query }) => {
        const view = await loadIntegrationView(ctx, caller, params.integrationName);
        const page = await listInstallations(ctx, caller.userId, view, query);
        return listEnvelope(await presentInstallations(view.integration, page.items), page.count, page.next);
      },
    }),

    route({
      method: 'post',
      path: INSTALLATIONS,
      summary: 'Install an integration in an organization (the installation there is, if any)',
      response: integrationInstallation,
      status: 201,
      params: integrationParams,
      body: installBody,
      handler: async ({ caller, params, body }) => {
        const view = await loadIntegrationView(ctx, caller, params.integrationName);
        const access = await loadOrgAccess(ctx, caller.userId, body.organization);
        const { installation } = await installIntegration(ctx, view, access);
        return created(
          apiUrl(config.PUBLIC_BASE_URL, installationPath(installation.integrationName, installation._id)),
          await presentOne(view.integration, installation),
        );
      },
    }),

    route({
      method: 'get',
      path: INSTALLATION,
      summary: "Get an integration's installation",
      response: integrationInstallation,
      params: installationParams,
      handler: async ({ caller, params }) => {
        const { view, installation } = await installationOfRequest(caller, params);
        return presentOne(view.integration, installation);
      },
    }),

    route({
      method: 'patch',
      path: INSTALLATION,
      summary:
        "Update an integration's installation (configuration, external ids; and, by the installing organization's admins, the space and site selection and the approved scopes)",
      response: integrationInstallation,
      params: installationParams,
      body: updateInstallationBody,
      handler: async ({ caller, params, body }) => {
        const { view, installation, standing } = await installationOfRequest(caller, params);
        return presentOne(view.integration, await updateInstallation(ctx, view.integration, installation, standing, body));
      },
    }),

    // 204 also when it was not installed, like any DELETE.
    route({
      method: 'delete',
      path: INSTALLATION,
      summary: 'Uninstall an integration from an organization (and from its spaces and sites)',
      params: installationParams,
      handler: async ({ caller, params }) => {
        const view = await loadIntegrationView(ctx, caller, params.integrationName);
        const installation = await findInstallation(ctx, params.integrationName, params.installationId);
        if (!installation) return;
        const standing = await installationStanding(ctx, caller.userId, view, installation.organizationId);
        requireInstallingAdmin(standing, 'uninstall integrations');
        await uninstallIntegration(ctx, view.integration, installation._id);
      },
    }),

    ...targetRoutes('space'),
    ...targetRoutes('site'),
    integrationTargetsRoute('space'),
    integrationTargetsRoute('site'),
  ];
}
