import type { ServiceName } from './config';

/**
 * The route table of design.md §1, as data: which service owns which /v1 paths.
 * `:name` matches one path segment, a trailing `**` any number of segments (also none).
 * First match wins, so more specific patterns come first. `public` routes are the few
 * that callers reach without an API token (SAML browser flows, signed download links,
 * integrations' icons and preview images):
 * the owning service authenticates those requests itself.
 */
export const ROUTE_TABLE: ReadonlyArray<{ pattern: string; service: ServiceName; public?: true }> = [
  { pattern: '/v1/public/saml/**', service: 'identity', public: true },
  { pattern: '/v1/public/content/**', service: 'content', public: true },
  { pattern: '/v1/public/integrations/**', service: 'integrations', public: true },

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
