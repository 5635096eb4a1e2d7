import { z } from 'zod';
import { customizationSettingsShape, customizationUrl, siteCustomizationSettings, siteSpaceCustomizationSettings } from '@quire/contract';
import { booleanQuery, route, sendImage, type Route } from '@quire/http';
import {
  customizationOf,
  hasOverrides,
  loadSiteFile,
  overrideSiteSpaceCustomization,
  presentCustomization,
  removeSiteSpaceCustomization,
  setSiteCustomization,
  siteSpaceCustomizationOf,
  SITE_IMAGE_MAX_BYTES,
} from '../domain/customization';
import type { PublishingContext } from '../domain/context';
import { loadSiteSpace } from '../domain/site-spaces';
import type { SiteDoc, SiteSpaceDoc } from '../db/models';
import { deleteUnderSite, siteOfRequest, writeSiteOfRequest } from './requests';
import { siteParams, siteSpaceParams } from './site-schemas';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';

/** A logo's or favicon's address, or the image itself (`data:image/…;base64,`, stored on the way: domain/customization). */
const imageInput = z.union([
  customizationUrl,
  z
    .string()
    .regex(/^data:image\/[\w.+-]+;base64,/, 'an https address or a data:image/…;base64, upload')
    .max(Math.ceil((SITE_IMAGE_MAX_BYTES * 4) / 3) + 100),
]);
const inputShape = customizationSettingsShape(imageInput);

/** PUT: the whole settings; parts left out take their defaults (GitBook: "unset fields revert to defaults"). */
const customizationBody = z.object(inputShape).partial();

/** A field a site space may override, or null to put the site's value back. */
const overridable = (schema: z.ZodType) => (schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema).nullable().optional();
/** Each field of a part, overridable. */
const overridableFields = <S extends z.ZodRawShape>(shape: S) =>
  z.object(Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, overridable(schema as z.ZodType)]))).optional();

/** PATCH of a site space's customization: what GitBook lets a site space override, each part field by field. */
const siteSpaceOverridesBody = z.object({
  title: overridable(inputShape.title),
  localizedTitle: overridable(inputShape.localizedTitle),
  styling: z
    .object({
      ...Object.fromEntries(
        Object.entries(inputShape.styling.shape)
          .filter(([key]) => key !== 'sidebar' && key !== 'codeTheme')
          .map(([key, schema]) => [key, overridable(schema)]),
      ),
      sidebar: overridableFields(inputShape.styling.shape.sidebar.shape),
      codeTheme: overridableFields(inputShape.styling.shape.codeTheme.shape),
    })
    .optional(),
  internationalization: overridableFields(inputShape.internationalization.shape),
  favicon: overridable(inputShape.favicon),
  announcement: overridable(inputShape.announcement),
  header: overridableFields(inputShape.header.shape),
  footer: overridableFields(inputShape.footer.shape),
  themes: overridableFields(inputShape.themes.shape),
  feedback: overridableFields(inputShape.feedback.shape),
  externalLinks: overridableFields(inputShape.externalLinks.shape),
  pagination: overridableFields(inputShape.pagination.shape),
  trademark: overridableFields(inputShape.trademark.shape),
  privacyPolicy: overridableFields(inputShape.privacyPolicy.shape),
  socialPreview: overridableFields(inputShape.socialPreview.shape),
});

/** GitBook's `unmasked` (deprecated): nothing is masked here, so it changes nothing. */
const customizationQuery = z.object({ unmasked: booleanQuery.optional() });
const siteFileParams = z.object({ siteId: z.string().min(1).max(100), fileId: z.string().min(1).max(100) });

const presentSiteSpace = (site: SiteDoc, siteSpace: SiteSpaceDoc) => ({
  ...presentCustomization(siteSpaceCustomizationOf(site, siteSpace), siteSpace.customization?.updatedAt ?? site.customization?.updatedAt),
  hasOverrides: hasOverrides(siteSpace),
});

/** A site's customization and its site spaces' overrides (GitBook's site-customization operations), and its uploaded images. */
export function customizationRoutes(ctx: PublishingContext): Route[] {
  return [
    route({
      method: 'get',
      path: `${SITE}/customization`,
      summary: "Get a site's customization",
      response: siteCustomizationSettings,
      params: siteParams,
      query: customizationQuery,
      handler: async ({ caller, params }) => {
        const { site } = await siteOfRequest(ctx, caller, params);
        return presentCustomization(customizationOf(site), site.customization?.updatedAt);
      },
    }),

    route({
      method: 'put',
      path: `${SITE}/customization`,
      summary: "Replace a site's customization",
      response: siteCustomizationSettings,
      params: siteParams,
      body: customizationBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'customize sites', async ({ site }) => {
          const saved = await setSiteCustomization(ctx, site, body);
          return presentCustomization(customizationOf(saved), saved.customization?.updatedAt);
        }),
    }),

    route({
      method: 'get',
      path: `${SITE}/site-spaces/:siteSpaceId/customization`,
      summary: "Get a site space's customization (the site's with the space's overrides)",
      response: siteSpaceCustomizationSettings,
      params: siteSpaceParams,
      query: customizationQuery,
      handler: async ({ caller, params }) => {
        const { site } = await siteOfRequest(ctx, caller, params);
        return presentSiteSpace(site, await loadSiteSpace(ctx, site, params.siteSpaceId));
      },
    }),

    route({
      method: 'patch',
      path: `${SITE}/site-spaces/:siteSpaceId/customization`,
      summary: "Override parts of a site's customization for one site space",
      response: siteSpaceCustomizationSettings,
      params: siteSpaceParams,
      body: siteSpaceOverridesBody,
      handler: ({ caller, params, body }) =>
        writeSiteOfRequest(ctx, caller, params, 'customize sites', async ({ site }) =>
          presentSiteSpace(site, await overrideSiteSpaceCustomization(ctx, site, params.siteSpaceId, body)),
        ),
    }),

    route({
      method: 'delete',
      path: `${SITE}/site-spaces/:siteSpaceId/customization`,
      summary: "Remove a site space's customization overrides",
      params: siteSpaceParams,
      handler: ({ caller, params }) =>
        deleteUnderSite(ctx, caller, params, 'customize sites', (site) => removeSiteSpaceCustomization(ctx, site, params.siteSpaceId)),
    }),

    // On the files host (gateway files-host.ts), where no cookie lives: a logo or favicon a customization uploaded.
    route({
      method: 'get',
      path: '/v1/public/sites/:siteId/files/:fileId',
      summary: "A site's uploaded logo or favicon",
      // PNG, JPEG, GIF or WebP: the type the image was recognised as when it was uploaded.
      produces: 'image/*',
      alsoAnswers: { '304': 'Not modified: the ETag sent in If-None-Match is the image’s' },
      access: 'public',
      params: siteFileParams,
      handler: async ({ params, req, res }) => sendImage(req, res, await loadSiteFile(ctx, params.siteId, params.fileId)),
    }),
  ];
}
