import { isIP } from 'node:net';
import type { ServiceName } from './config';

/**
 * The route table of design.md §1, as data: which service owns which /v1 paths.
 * `:name` matches one path segment, a trailing `**` any number of segments (also none).
 * First match wins, so more specific patterns come first. `public` routes are the few
 * that callers reach without an API token (SAML browser flows, signed download links,
 * integrations' icons and preview images, sites' logos and favicons):
 * the owning service authenticates those requests itself.
 */
export const ROUTE_TABLE: ReadonlyArray<{ pattern: string; service: ServiceName; public?: true }> = [
  { pattern: '/v1/public/saml/**', service: 'identity', public: true },
  { pattern: '/v1/public/content/**', service: 'content', public: true },
  { pattern: '/v1/public/integrations/**', service: 'integrations', public: true },
  { pattern: '/v1/public/sites/**', service: 'publishing', public: true },

  { pattern: '/v1/user/**', service: 'identity' },
  { pattern: '/v1/users/**', service: 'identity' },
  { pattern: '/v1/orgs', service: 'identity' },
  { pattern: '/v1/orgs/:org', service: 'identity' },
  { pattern: '/v1/orgs/:org/members/**', service: 'identity' },
  { pattern: '/v1/orgs/:org/ping', service: 'identity' },
  { pattern: '/v1/orgs/:org/teams/**', service: 'identity' },
  { pattern: '/v1/orgs/:org/saml/**', service: 'identity' },
  { pattern: '/v1/orgs/:org/sso', service: 'identity' },

  { pattern: '/v1/spaces/**', service: 'content' },
  { pattern: '/v1/collections/**', service: 'content' },
  { pattern: '/v1/orgs/:org/spaces/**', service: 'content' },
  { pattern: '/v1/orgs/:org/collections/**', service: 'content' },
  { pattern: '/v1/orgs/:org/change-requests/**', service: 'content' },

  { pattern: '/v1/orgs/:org/sites/**', service: 'publishing' },

  { pattern: '/v1/integrations/**', service: 'integrations' },

  { pattern: '/v1/orgs/:org/conversations/**', service: 'insights' },
  { pattern: '/v1/orgs/:org/conversations-issues/**', service: 'insights' },
  { pattern: '/v1/orgs/:org/conversations-clusters/**', service: 'insights' },
  { pattern: '/v1/orgs/:org/translations/**', service: 'insights' },
];

type Matcher = (segments: string[]) => boolean;

function compile(pattern: string): Matcher {
  const parts = pattern.split('/').filter(Boolean);
  const open = parts[parts.length - 1] === '**';
  const fixed = open ? parts.slice(0, -1) : parts;
  return (segments) => {
    if (open ? segments.length < fixed.length : segments.length !== fixed.length) return false;
    return fixed.every((part, i) => part.startsWith(':') || part === segments[i]);
  };
}

const compiled = ROUTE_TABLE.map((route) => ({ ...route, matches: compile(route.pattern) }));

/** The route that owns `path` (no query string), or undefined. */
export function routeFor(path: string): { service: ServiceName; public: boolean } | undefined {
  const segments = path.split('/').filter(Boolean);
  if (segments.some((s) => s === '..' || s === '.')) return undefined;
  const route = compiled.find((candidate) => candidate.matches(segments));
  return route && { service: route.service, public: route.public === true };
}

/** The service that owns `path` (no query string), or undefined. */
export function serviceFor(path: string): ServiceName | undefined {
  return routeFor(path)?.service;
}

/** Host names that are never a published site's: the API's own, loopback, addresses, and cluster-internal names. */
function isApiHost(host: string, apiHost: string): boolean {
  if (!host || host === apiHost || host === 'localhost' || isIP(host.replace(/^\[|\]$/g, ''))) return true;
  return !host.includes('.') || host.endsWith('.svc') || host.endsWith('.cluster.local') || host.endsWith('.internal');
}

/**
 * Where a request for a published site goes in the publishing service, or undefined when it
 * is not one: `/sites/<org>/<site>/…` on any host (the local form), and every path on a
 * host that is not the API's (a site's own hostname, or the sites domain), as
 * `/hosted/<host>/…`.
 */
export function siteRequestPath(hostname: string, apiHost: string, originalUrl: string): string | undefined {
  const host = hostname.toLowerCase();
  if (!isApiHost(host, apiHost)) return `/hosted/${host}${originalUrl.startsWith('/') ? originalUrl : `/${originalUrl}`}`;
  if (originalUrl === '/sites' || originalUrl.startsWith('/sites/') || originalUrl.startsWith('/sites?')) return originalUrl;
  return undefined;
}
