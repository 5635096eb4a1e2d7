import { z } from 'zod';
import { booleanQuery, httpUrlSchema, idSchema, listQuerySchema } from '@quire/http';
import { siteParams } from './site-schemas';

/*
 * Site redirects (GitBook's site-redirects operations): requests, and the objects answered
 * (GitBook's SiteRedirect and its destinations), which the API document publishes.
 */

/** GitBook's SiteRedirectSourcePath: a path below the site's root, optionally ending with a `*` wildcard. */
const SOURCE_PATTERN = /^\/(?!\*)(?!.*\*.+)(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/;
export const sourcePath = z.string().max(512).regex(SOURCE_PATTERN, 'must be a path such as /old/page, optionally ending with * (/old/*)');

/*
 * The destinations, twice: what requests send (anonymous in the API document, as every request
 * schema is) and what answers carry (named after GitBook's schemas). One schema named for both
 * would be two different definitions under one name (their input and output sides).
 */
const destinations = () => ({
  siteSection: z.object({ kind: z.literal('site-section'), siteSectionId: idSchema }),
  siteSpace: z.object({ kind: z.literal('site-space'), siteSpaceId: idSchema }),
  page: z.object({ kind: z.literal('site-page'), siteSpaceId: idSchema, pageId: idSchema }),
  external: z.object({ kind: z.literal('external'), url: httpUrlSchema }),
});

const given = destinations();
/** Requests may also name a page by its path in one of the site's spaces: it is stored as the page it names (site-page). */
const pathDestination = z.object({ kind: z.literal('path'), spaceId: idSchema, path: z.string().max(512) });
export const inputDestination = z.discriminatedUnion('kind', [given.siteSection, given.siteSpace, given.page, given.external, pathDestination]);
export type InputDestination = z.infer<typeof inputDestination>;

const shown = destinations();
export const redirectDestination = z
  .discriminatedUnion('kind', [
    shown.siteSection.meta({ id: 'SiteRedirectDestinationSiteSection' }),
    shown.siteSpace.meta({ id: 'SiteRedirectDestinationSiteSpace' }),
    shown.page.meta({ id: 'SiteRedirectDestinationPage' }),
    shown.external.meta({ id: 'SiteRedirectDestinationExternal' }),
  ])
  .meta({ id: 'SiteRedirectDestination' });

/** GitBook's SiteRedirect. */
export const siteRedirect = z
  .object({
    object: z.literal('site-redirect'),
    id: z.string(),
    source: z.string(),
    draft: z.boolean(),
    captureWildcard: z.boolean(),
    permanent: z.boolean(),
    destination: redirectDestination,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime().optional(),
  })
  .meta({ id: 'SiteRedirect' });

export const redirectParams = siteParams.extend({ siteRedirectId: idSchema });

export const createRedirectBody = z.object({
  source: sourcePath,
  destination: inputDestination,
  captureWildcard: z.boolean().default(false),
  draft: z.boolean().default(false),
  permanent: z.boolean().default(false),
});

export const updateRedirectBody = z
  .object({
    source: sourcePath,
    destination: inputDestination,
    captureWildcard: z.boolean(),
    draft: z.boolean(),
    permanent: z.boolean(),
  })
  .partial();

export const listRedirectsQuery = listQuerySchema.extend({
  search: z.string().max(512).optional(),
  draft: booleanQuery.optional(),
  orderBy: z.enum(['createdAt', 'updatedAt', 'source']).default('createdAt'),
});

export const redirectBySourceQuery = z.object({ source: sourcePath, shareKey: z.string().max(512).optional() });

export const redirectBySource = z.object({ redirect: siteRedirect, target: z.string() });

/** One item of a bulk upsert: publish a draft, or upsert (a destination) or delete (null) a live or draft redirect. */
const bulkItem = z.union([
  z.object({ source: sourcePath, intent: z.literal('publish') }),
  z.object({
    source: sourcePath,
    intent: z.enum(['live', 'draft']).default('live'),
    captureWildcard: z.boolean().default(false),
    permanent: z.boolean().optional(),
    destination: inputDestination.nullable(),
  }),
]);
export type BulkItem = z.infer<typeof bulkItem>;

export const bulkRedirectsBody = z.object({ redirects: z.array(bulkItem).min(1).max(500) });

const bulkResult = (status: string, withId: boolean) =>
  z.object({ status: z.literal(status), source: z.string(), draft: z.boolean(), ...(withId ? { id: z.string() } : {}) });
export const bulkRedirectsResult = z.object({
  results: z.array(
    z.union([
      bulkResult('created', true),
      bulkResult('updated', true),
      bulkResult('deleted', false),
      bulkResult('published', true),
      z.object({ status: z.literal('error'), source: z.string(), draft: z.boolean(), error: z.string() }),
    ]),
  ),
});
export type BulkResult = z.infer<typeof bulkRedirectsResult>['results'][number];
