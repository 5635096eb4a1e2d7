import { z } from 'zod';
import { booleanQuery, httpUrlSchema, listQuerySchema, idSchema } from '@quire/http';
import { SITE_TYPES, SITE_VISIBILITIES } from '../db/models';

/** Limits of the spec's Limits table and the OpenAPI document. */
const id = idSchema;
const siteTitle = z.string().min(2).max(128);
const sectionTitle = z.string().min(2).max(128);
const icon = z.string().max(50);
const path = z.string().min(1).max(100);
const condition = z.string().max(1024);
const hostname = z
  .string()
  .max(512)
  .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/, 'must be a host name such as docs.example.com')
  // A name whose last label is a number (127.0.0.10, 0x7f.0.0.1) is an IPv4 address to a browser
  // (the URL standard's "ends in a number"), which the gateway never routes to a site.
  .refine((name) => !/(^|\.)(\d+|0x[0-9a-f]*)$/.test(name), 'must be a host name such as docs.example.com, not an IP address');
const proxy = z
  .string()
  .max(512)
  .regex(/^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/, 'must be a host plus a subdirectory path, such as example.com/docs');

export const organizationParams = z.object({ organizationId: id });
export const siteParams = organizationParams.extend({ siteId: id });
export const sectionParams = siteParams.extend({ siteSectionId: id });
export const groupParams = siteParams.extend({ siteSectionGroupId: id });
export const groupSectionParams = groupParams.extend({ siteSectionId: id });
export const siteSpaceParams = siteParams.extend({ siteSpaceId: id });
export const shareLinkParams = siteParams.extend({ shareLinkId: id });

export const listSitesQuery = listQuerySchema.extend({
  space: id.optional(),
  title: z.string().max(128).optional(),
  published: booleanQuery.optional(),
});

export const createSiteBody = z
  .object({
    type: z.enum(SITE_TYPES),
    title: siteTitle,
    visibility: z.enum(SITE_VISIBILITIES),
    spaces: z.array(id).max(100),
  })
  .partial();

export const updateSiteBody = z
  .object({
    title: siteTitle,
    visibility: z.enum(SITE_VISIBILITIES),
    basename: z.string().min(1).max(100),
    hostname: hostname.nullable(),
    proxy: proxy.nullable(),
    agentsContext: z.enum(['excluded', 'included']),
    adaptiveContent: z.object({ enabled: z.boolean() }),
    defaultSiteSpace: id,
    defaultSiteSection: id,
  })
  .partial();

/** Only the share key changes what is returned; the rest is paging. */
export const shareKeyQuery = z.object({ shareKey: z.string().min(1).max(256).optional() });
export const structureListQuery = listQuerySchema.extend(shareKeyQuery.shape);
export const listSiteSpacesQuery = structureListQuery.extend({ default: booleanQuery.optional() });
export const publishedQuery = shareKeyQuery.extend({
  /** The visitor's JWT; `jwt_token` is the name published sites take it under. */
  visitorAuthToken: z.string().min(1).max(8192).optional(),
  jwt_token: z.string().min(1).max(8192).optional(),
});

export const createSectionBody = z.object({
  spaceId: id,
  title: sectionTitle.nullable().optional(),
  icon: icon.nullable().optional(),
});

export const updateSectionBody = z
  .object({
    title: sectionTitle,
    path,
    defaultSiteSpace: id,
    condition: condition.nullable(),
    icon: icon.nullable(),
    description: z.string().max(256).nullable(),
  })
  .partial();

/**
 * Deprecated moves (OpenAPI *MovePosition): before or after one pointer; without a
 * position (or an empty one) the item moves to the end of its level.
 */
function movePosition<T extends z.ZodType>(pointer: T) {
  return z.object({
    position: z
      .object({ before: pointer, after: pointer })
      .partial()
      .refine((p) => !(p.before && p.after), 'give at most one of before or after')
      .optional(),
  });
}

export const moveSectionBody = movePosition(z.object({ type: z.literal('site-section'), siteSection: id }));
export const moveSiteSpaceBody = movePosition(z.object({ type: z.literal('site-space'), siteSpace: id }));
export const moveGroupBody = movePosition(z.object({ type: z.enum(['site-section', 'site-section-group']), id }));

export const createGroupBody = z.object({
  title: z.string().min(1).max(100),
  icon: icon.nullable().optional(),
  sections: z.array(id).max(500).optional(),
  parent: id.optional(),
});
export const updateGroupBody = z.object({ title: z.string().min(1).max(100), icon: icon.nullable() }).partial();
export const addGroupSectionBody = z.object({ sectionId: id });

export const createSiteSpaceBody = z.object({ spaceId: id, sectionId: id.optional() });
export const updateSiteSpaceBody = z.object({ path, condition: condition.nullable(), spaceId: id }).partial();

export const createShareLinkBody = z.object({ name: z.string().max(50) });
export const updateShareLinkBody = z.object({ active: z.boolean(), name: z.string().max(50) }).partial();

export const adaptiveSchemaBody = z.object({ jsonSchema: z.unknown().refine((v) => v !== undefined, 'Required') });

/** A scope token (RFC 6749 §3.3). */
const oidcScope = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope token (printable ASCII, no spaces, quotes or backslashes)');

/**
 * The OpenID Connect provider visitors sign in with (domain/oidc.ts checks the issuer's address);
 * null removes it. The client secret may be left out to keep the stored one, for the same issuer and client.
 */
const oidcSettings = z.object({
  issuer: z.string().min(1).max(512),
  clientId: z.string().min(1).max(256),
  clientSecret: z.string().min(1).max(1024).optional(),
  scopes: z.array(oidcScope).max(20).optional(),
});

/** Visitors are sent to these addresses: http(s) only, never `javascript:` or `data:`. */
export const updatePublishingAuthBody = z
  .object({
    backend: z.literal('custom'),
    fallbackURL: httpUrlSchema.nullable(),
    logoutURL: httpUrlSchema.nullable(),
    oidc: oidcSettings.nullable(),
  })
  .partial();
