import { apiUrl } from '@quire/http';
import type { IntegrationsConfig } from '../config';
import { installationConfigurationJson, type InstallationDoc, type IntegrationDoc, type TargetInstallationDoc } from '../db/models';
import { installationStatus, scopesInForce } from '../domain/installation-access';
import { integrationEndpointUrl } from './integration-presenter';

type UrlConfig = Pick<IntegrationsConfig, 'PUBLIC_BASE_URL'>;

export const installationPath = (integrationName: string, installationId: string) =>
  `/v1/integrations/${encodeURIComponent(integrationName)}/installations/${encodeURIComponent(installationId)}`;

export const targetInstallationPath = (target: Pick<TargetInstallationDoc, 'integrationName' | 'installationId' | 'kind' | 'targetId'>) =>
  `${installationPath(target.integrationName, target.installationId)}/${target.kind === 'space' ? 'spaces' : 'sites'}/${encodeURIComponent(target.targetId)}`;

/** An installation's public endpoint: its integration's (the script tells installations apart by what the caller sends). */
const publicEndpointOf = (config: UrlConfig, integrationName: string) => integrationEndpointUrl(config.PUBLIC_BASE_URL, integrationName);

/**
 * spec "Installation" (GitBook IntegrationInstallation). `spaces`: the space installations it
 * manages. `scopes`: those its tokens act with; the integration's others await the installer's
 * approval (the installation is `pending` meanwhile).
 */
export function presentInstallation(
  installation: InstallationDoc,
  { integration, spaces, config }: { integration: Pick<IntegrationDoc, 'scopes'>; spaces: number; config: UrlConfig },
) {
  const publicEndpoint = publicEndpointOf(config, installation.integrationName);
  return {
    id: installation._id,
    status: installationStatus(installation, integration),
    space_selection: installation.spaceSelection,
    site_selection: installation.siteSelection,
    spaces,
    configuration: installationConfigurationJson.read(installation.configuration),
    createdAt: installation.createdAt.toISOString(),
    updatedAt: installation.updatedAt.toISOString(),
    urls: {
      location: apiUrl(config.PUBLIC_BASE_URL, installationPath(installation.integrationName, installation._id)),
      app: apiUrl(
        config.PUBLIC_BASE_URL,
        `/o/${encodeURIComponent(installation.organizationId)}/integrations/${encodeURIComponent(installation.integrationName)}`,
      ),
      publicEndpoint,
      publicContentEndpoint: publicEndpoint,
    },
    externalIds: installation.externalIds,
    target: { organization: installation.organizationId },
    scopes: scopesInForce(installation, integration),
  };
}

export type PresentedInstallation = ReturnType<typeof presentInstallation>;

/**
 * spec "Integration space / site entry" (GitBook IntegrationSpaceInstallation and
 * IntegrationSiteInstallation): `space` or `site` is the id, or the object when given.
 */
export function presentTargetInstallation(target: TargetInstallationDoc, { object, config }: { object?: Record<string, unknown>; config: UrlConfig }) {
  const publicEndpoint = publicEndpointOf(config, target.integrationName);
  return {
    integration: target.integrationName,
    installation: target.installationId,
    status: target.status,
    configuration: installationConfigurationJson.read(target.configuration),
    externalIds: target.externalIds,
    urls: { location: apiUrl(config.PUBLIC_BASE_URL, targetInstallationPath(target)), publicEndpoint, publicContentEndpoint: publicEndpoint },
    ...(target.kind === 'space' ? { space: object ?? target.targetId } : { site: object ?? target.targetId }),
  };
}
