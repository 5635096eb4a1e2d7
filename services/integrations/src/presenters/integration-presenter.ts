import { apiUrl } from '@quire/http';
import { integrationJson, type IntegrationDoc } from '../db/models';
import type { IntegrationViewer } from '../domain/catalogue';
import { integrationFileUrl } from '../domain/files';
import type { OrganizationObject } from '../domain/organizations';

/** The API path of an integration. */
export const integrationPath = (name: string) => `/v1/integrations/${encodeURIComponent(name)}`;
/** The integration's public endpoint (answered by its script, without a token). */
export const integrationEndpointUrl = (baseUrl: string, name: string) => apiUrl(baseUrl, `/v1/public/integrations/${encodeURIComponent(name)}/integration`);

/**
 * The integration's addresses (GitBook's Integration.urls): the API, its icon, the app page,
 * its assets, and its public HTTP endpoint (`/v1/public/integrations/{name}/integration`,
 * answered by its script; the content endpoint is the same: Quire has no separate content origin).
 */
function integrationUrls(baseUrl: string, integration: Pick<IntegrationDoc, '_id' | 'iconFileId'>) {
  const location = apiUrl(baseUrl, integrationPath(integration._id));
  const publicEndpoint = integrationEndpointUrl(baseUrl, integration._id);
  return {
    location,
    ...(integration.iconFileId ? { icon: integrationFileUrl(baseUrl, integration._id, integration.iconFileId) } : {}),
    app: apiUrl(baseUrl, `/integrations/${encodeURIComponent(integration._id)}`),
    assets: `${location}/assets`,
    publicEndpoint,
    publicContentEndpoint: publicEndpoint,
  };
}

/**
 * The owner as someone outside it sees it in the catalogue: what identity presents to a
 * non-member, less what only concerns its members (the e-mail domains that let people join,
 * the reviewers its merge rules name, its default site).
 */
function ownerSeenFromOutside(owner: OrganizationObject): OrganizationObject {
  const { defaultContent: _site, ...rest } = owner;
  return { ...rest, emailDomains: [], mergeRules: owner.mergeRules.type === 'rules' ? { type: 'rules', rules: [] } : owner.mergeRules };
}

/**
 * spec "Integration" (GitBook Integration) as `viewer` sees it: `owner` is the publishing
 * organization (identity's presentation to them), `permissions.admin` whether they administer
 * it. Never the script, the secrets or the signing secret.
 */
export function presentIntegration(integration: IntegrationDoc, options: { owner: OrganizationObject; viewer: IntegrationViewer; baseUrl: string }) {
  const { owner, viewer, baseUrl } = options;
  return {
    object: 'integration' as const,
    name: integration._id,
    version: integration.version,
    title: integration.title,
    description: integration.description,
    ...(integration.summary ? { summary: integration.summary } : {}),
    previewImages: integration.previewImageFileIds.map((fileId) => integrationFileUrl(baseUrl, integration._id, fileId)),
    target: integration.target,
    verified: false,
    visibility: integration.visibility,
    scopes: integration.scopes,
    categories: integration.categories,
    blocks: integrationJson.blocks.read(integration.blocks),
    contentSources: integrationJson.contentSources.read(integration.contentSources),
    configurations: integrationJson.configurations.read(integration.configurations),
    externalLinks: integration.externalLinks.map(({ url, label }) => ({ url, label })),
    owner: viewer.ownerRole ? owner : ownerSeenFromOutside(owner),
    urls: integrationUrls(baseUrl, integration),
    permissions: { admin: viewer.ownerRole === 'admin' },
    ...(integration.contentSecurityPolicy ? { contentSecurityPolicy: integration.contentSecurityPolicy } : {}),
  };
}

export type PresentedIntegration = ReturnType<typeof presentIntegration>;
