import { apiUrl } from '@quire/http';
import type { PublishingConfig } from '../config';
import type { SiteDoc } from '../db/models';

/** The address a site is served at whether or not it is published: its own host, its proxy, or ours. */
export function siteAddress(site: Pick<SiteDoc, '_id' | 'organizationId' | 'hostname' | 'basename' | 'proxy'>, config: PublishingConfig): string {
  if (site.hostname) return `https://${site.hostname}/`;
  if (site.proxy) return `https://${site.proxy}/`;
  return defaultSiteAddress(site, config);
}

/**
 * Where the site lives without a hostname of its own (also the proxy target when it is
 * proxied): on the sites domain, or, when none is set, under the gateway's /sites/.
 */
export function defaultSiteAddress(site: Pick<SiteDoc, '_id' | 'organizationId' | 'basename'>, config: PublishingConfig): string {
  const path = `${encodeURIComponent(site.organizationId)}/${encodeURIComponent(site.basename || site._id)}/`;
  return config.SITES_BASE_DOMAIN ? `https://${config.SITES_BASE_DOMAIN}/${path}` : apiUrl(config.PUBLIC_BASE_URL, `${SITES_PATH}/${path}`);
}

/** The gateway's path of published sites served without a sites domain. */
export const SITES_PATH = '/sites';

/** `base` + path segments (empty ones skipped), ending with '/'. */
export function joinAddress(base: string, ...segments: Array<string | null | undefined>): string {
  return segments.filter((s): s is string => Boolean(s)).reduce((url, segment) => `${url}${encodeURIComponent(segment)}/`, base);
}

/** A published address opened with a share link's key (the key travels as ?share=). */
export function withShareKey(address: string, shareKey: string | undefined): string {
  return shareKey ? `${address}?share=${encodeURIComponent(shareKey)}` : address;
}

export function siteApiUrl(config: PublishingConfig, organizationId: string, siteId: string, suffix = ''): string {
  return apiUrl(config.PUBLIC_BASE_URL, `/v1/orgs/${organizationId}/sites/${siteId}${suffix}`);
}
