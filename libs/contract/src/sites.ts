import { z } from 'zod';
import { permissions, timestamp, url } from './common';
import { siteCustomizationSettings } from './customization';
import { space } from './spaces';

/** Limits of the spec's "Limits" table (and GitBook's document, where it names them). */
const siteTitle = z.string().min(2).max(128);
const sectionTitle = z.string().min(2).max(128);
const groupTitle = z.string().min(1).max(100);
const structurePath = z.string().min(1).max(100);
const condition = z.string().max(1024);
/** An icon name (GitBook's `Icon`). */
const icon = z.string().max(50);

/** Every site type (spec: "basic is the default at creation"; the list is GitBook's SiteType). */
export const siteType = z.enum(['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium']).meta({ id: 'SiteType' });

/** spec "Site" visibility. */
export const siteVisibility = z.enum(['public', 'unlisted', 'share-link', 'visitor-auth']).meta({ id: 'SiteVisibility' });

/** spec "Site" `features`: a premium feature, the plan it belongs to, whether it is frozen. */
export const siteFeature = z
  .object({
    id: z.enum([
      'sites-adaptive-content',
      'sites-advanced-customization',
      'sites-advanced-insights',
      'sites-ads',
      'sites-ai-search',
      'sites-ai-assistant',
      'sites-ai-insights',
      'sites-fix-broken-links',
      'sites-connections',
      'sites-content-gaps',
      'sites-channels',
      'sites-embed',
      'sites-api-playground',
      'sites-basic-customization',
      'sites-broken-links',
      'sites-custom-domain',
      'sites-custom-fonts',
      'sites-custom-subdirectory',
      'sites-full-text-search',
      'sites-multivariant-site',
      'sites-no-custom-domain',
      'sites-page-feedback',
      'sites-page-traffic-insights',
      'sites-pdf-export',
      'sites-preview-deployments',
      'sites-public-visibility',
      'sites-redirects',
      'sites-search-insights',
      'sites-sections',
      'sites-seo',
      'sites-share-links',
      'sites-unlisted-visibility',
      'sites-user-contribution',
      'sites-visitor-authentication',
      'sites-visitors',
    ]),
    plan: siteType,
    frozen: z.boolean(),
    customizations: z
      .array(
        z.enum([
          'header-logo',
          'header-primary-link',
          'theme-preset',
          'premium-fonts',
          'custom-icons',
          'footer-logo',
          'footer-links',
          'footer-copyright',
          'semantic-colors',
        ]),
      )
      .optional(),
  })
  .meta({ id: 'SiteFeature' });

/**
 * spec "Site". Beyond the spec, as GitBook's Site has them: `appliedType` (the type in force),
 * `defaultLevel` (always `inherit`: a site has no access list of its own, members get their
 * organization role on it), `permissions`, and `urls.preview`. `urls` is always there (GitBook
 * requires it), with `published` only while the site is published. `icon` and `ads` are never
 * emitted (Quire has no site customization nor ads).
 */
export const site = z
  .object({
    object: z.literal('site'),
    id: z.string(),
    type: siteType,
    appliedType: siteType,
    title: siteTitle,
    hostname: z
      .string()
      .max(512)
      .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/)
      .optional(),
    basename: z.string().min(1).max(100).optional(),
    proxy: z
      .object({
        origin: z
          .string()
          .max(512)
          .regex(/^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/),
        target: z.string(),
      })
      .optional(),
    visibility: siteVisibility,
    defaultLevel: z.literal('inherit'),
    permissions: permissions('view', 'access', 'edit', 'create', 'admin', 'installIntegration', 'viewAdaptiveSchema', 'editAdaptiveSchema'),
    published: z.boolean(),
    siteSpaces: z.number().int().min(0),
    createdAt: timestamp,
    adaptiveContent: z.object({ enabled: z.boolean() }).optional(),
    agentsContext: z.enum(['excluded', 'included']),
    features: z.array(siteFeature),
    urls: z.object({ location: url, app: url, preview: url, published: url.optional() }),
  })
  .meta({ id: 'Site' });

/** `urls` of a section or site space: the published address, only while the site is published. */
const publishedUrls = z.object({ published: url.optional() });

/**
 * spec "SiteSpace": a space shown by a site, with the whole Space as the viewer sees it.
 * Beyond the spec, as GitBook's SiteSpace has them: `draft` and `hidden` (always false: Quire
 * has no draft structure nor hidden site spaces).
 */
export const siteSpace = z
  .object({
    object: z.literal('site-space'),
    id: z.string(),
    path: structurePath,
    section: z.string().optional(),
    space,
    title: z.string(),
    default: z.boolean(),
    condition: condition.optional(),
    draft: z.boolean(),
    hidden: z.boolean(),
    hasAdvancedCustomizationFeature: z.boolean().optional(),
    urls: publishedUrls,
  })
  .meta({ id: 'SiteSpace' });

/** spec "SiteSection", with GitBook's `draft` (always false: Quire has no draft structure). */
export const siteSection = z
  .object({
    object: z.literal('site-section'),
    id: z.string(),
    title: sectionTitle,
    description: z.string().max(256).optional(),
    default: z.boolean(),
    draft: z.boolean(),
    path: structurePath,
    condition: condition.optional(),
    sectionGroup: z.string().optional(),
    icon: icon.optional(),
    siteSpaces: z.array(siteSpace),
    urls: publishedUrls,
  })
  .meta({ id: 'SiteSection' });

/**
 * spec "SiteSectionGroup". As in GitBook's document, groups nest (the create body takes a
 * `parent`): `children` holds sections and groups, in order; `sections` (GitBook, deprecated)
 * only its sections; `draft` is always false.
 */
export const siteSectionGroup = z
  .object({
    object: z.literal('site-section-group'),
    id: z.string(),
    title: groupTitle,
    sectionGroup: z.string().optional(),
    icon: icon.optional(),
    draft: z.boolean(),
    sections: z.array(siteSection),
    get children(): z.ZodArray<z.ZodUnion<[typeof siteSection, typeof siteSectionGroup]>> {
      return z.array(z.union([siteSection, siteSectionGroup]));
    },
  })
  .meta({ id: 'SiteSectionGroup' });

/** spec "ShareLink". */
export const shareLink = z
  .object({
    object: z.literal('share-link'),
    id: z.string(),
    createdAt: timestamp,
    name: z.string().max(50).optional(),
    active: z.boolean().optional(),
    urls: z.object({ published: url }),
  })
  .meta({ id: 'ShareLink' });

/** A boolean claim of the visitor (GitBook's SiteAdaptiveJSONSchemaClaimsProperties, booleans only). */
const adaptiveClaim = z.object({ type: z.literal('boolean'), description: z.string() }).meta({ id: 'SiteAdaptiveClaim' });

/**
 * spec "Site adaptive schema": a draft-07 JSON Schema of the visitor's claims, booleans,
 * plus `unsigned`, an object of unsigned boolean claims; no additional properties.
 */
export const siteAdaptiveSchema = z
  .object({
    object: z.literal('site-adaptive-schema'),
    jsonSchema: z.object({
      $schema: z.literal('http://json-schema.org/draft-07/schema#').optional(),
      title: z.string().optional(),
      description: z.string().optional(),
      type: z.literal('object'),
      properties: z
        .object({
          unsigned: z
            .object({
              type: z.literal('object'),
              description: z.literal('Unsigned claims of the site visitor.'),
              properties: z.record(z.string(), adaptiveClaim),
              additionalProperties: z.literal(false),
            })
            .optional(),
        })
        .catchall(adaptiveClaim),
      additionalProperties: z.literal(false),
    }),
    updatedAt: timestamp,
  })
  .meta({ id: 'SiteAdaptiveSchema' });

/** spec "Template condition". */
export const siteAdaptiveTemplateCondition = z.object({ description: z.string(), condition: z.string() }).meta({ id: 'SiteAdaptiveTemplateCondition' });

/** GET .../adaptive-schema/template-conditions. */
export const siteAdaptiveTemplateConditions = z.object({ items: z.array(siteAdaptiveTemplateCondition) });

/**
 * GitBook's SitePublishingAuth (the spec is silent): what admins need to sign visitor tokens.
 * Quire has the custom backend only; `integration` is never emitted. Quire's own addition:
 * `oidc`, the OpenID Connect provider visitors may sign in with — never its client secret.
 */
export const sitePublishingAuth = z
  .object({
    object: z.literal('publishing-auth'),
    backend: z.literal('custom'),
    privateKey: z.string(),
    fallbackURL: url.optional(),
    logoutURL: url.optional(),
    oidc: z
      .object({
        issuer: url,
        clientId: z.string(),
        scopes: z.array(z.string()),
        /** A client secret is stored (it is never shown). */
        clientSecretSet: z.boolean(),
        /** The redirect URI to register with the provider (at the site's address). */
        redirectURL: url,
        /** The address to register as the provider's post-logout redirect URI. */
        postLogoutRedirectURL: url,
      })
      .optional(),
  })
  .meta({ id: 'SitePublishingAuth' });

/** GitBook's SiteIntegrationScript: Quire has no integration scripts, so `scripts` is always empty. */
export const siteIntegrationScript = z
  .object({ script: url, contentSecurityPolicy: z.string().optional(), cookies: z.boolean() })
  .meta({ id: 'SiteIntegrationScript' });

/**
 * GET .../published (spec: `{object, site, structure: {type 'sections', structure}, ...}`):
 * the site and its sections and section groups as a visitor sees them. GitBook's `scripts`
 * is there (always empty); its `customizations` is not (Quire has no site customization).
 */
export const publishedContentSite = z
  .object({
    object: z.literal('published-content-site'),
    site,
    structure: z.object({
      type: z.literal('sections'),
      structure: z.array(z.union([siteSection, siteSectionGroup])),
    }),
    /** The site's customization, and each site space's where it has overrides. */
    customizations: z.object({ site: siteCustomizationSettings, siteSpaces: z.record(z.string(), siteCustomizationSettings) }),
    scripts: z.array(siteIntegrationScript),
  })
  .meta({ id: 'PublishedContentSite' });
