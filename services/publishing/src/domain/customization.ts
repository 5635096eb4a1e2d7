import { z } from 'zod';
import { customizationSettingsShape, customizationUrl, type SiteCustomizationSettings } from '@quire/contract';
import { apiUrl, decodeImage, httpError, imageId, isImageDataUrl, zodMessage } from '@quire/http';
import { filesBaseUrl, storedJson } from '@quire/runtime';
import type { SiteDoc, SiteFileDoc, SiteSpaceDoc } from '../db/models';
import type { PublishingContext } from './context';
import { loadSiteSpace } from './site-spaces';
import { bumpSiteVersions } from './site-version';

/*
 * A site's customization (GitBook's site customization settings) and each site space's
 * overrides of it. The site's settings are stored whole (a PUT replaces them, what it leaves out
 * taking its default); a site space stores only what it overrides, and its settings are the
 * site's with those applied. Logos and favicons may be uploaded in the request (a
 * `data:image/…;base64,` address): they are checked, stored as SiteFile documents and answered
 * as their address on the files host, where no cookie lives. Every change moves the site's
 * version, so the next page served shows it.
 */

export type CustomizationSettings = Omit<SiteCustomizationSettings, 'updatedAt'>;

/** Largest logo or favicon a customization may upload. */
export const SITE_IMAGE_MAX_BYTES = 1_048_576;

const color = (light: string, dark = light) => ({ light, dark });
const codeThemes = { light: 'default-light', dark: 'default-dark' } as const;

/** What a site shows before anyone customizes it (GitBook's defaults, but for the trademark Quire does not add). */
export function defaultCustomization(): CustomizationSettings {
  return {
    styling: {
      theme: 'clean',
      primaryColor: color('#346DDB'),
      infoColor: color('#787878'),
      successColor: color('#00C950'),
      warningColor: color('#FE9A00'),
      dangerColor: color('#FB2C36'),
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      background: 'plain',
      icons: 'regular',
      codeTheme: { default: { ...codeThemes }, openapi: { ...codeThemes } },
      sidebar: { background: 'default', list: 'default' },
      search: 'subtle',
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'system', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'none' },
    advancedCustomization: { enabled: true },
    pageActions: { items: ['markdown', 'mcp'] },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    trademark: { enabled: false },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: false },
  };
}

const settingsSchema = z.object(customizationSettingsShape(customizationUrl));

/** A site's settings (SiteDoc.customization), read and written only through this. */
export const siteCustomizationJson = storedJson('Site.customization', settingsSchema, { fallback: defaultCustomization() });

/** A site space's overrides (SiteSpaceDoc.customization): parts of the settings, checked whole once applied. */
export const siteSpaceOverridesJson = storedJson('SiteSpace.customization', z.record(z.string(), z.unknown()), { fallback: {} });

/**
 * Parts of the settings whose fields are overridden one by one (a site space may override the
 * primary colour and keep the site's font); anything else is replaced whole.
 */
const CONTAINERS = new Set([
  'styling',
  'styling.sidebar',
  'styling.codeTheme',
  'internationalization',
  'header',
  'footer',
  'themes',
  'feedback',
  'externalLinks',
  'pagination',
  'trademark',
  'privacyPolicy',
  'socialPreview',
]);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `base` with `changes` applied: a null removes a field, a container's fields are applied one by one. */
function applyChanges(base: Json, changes: Json, at = ''): Json {
  const result: Json = { ...base };
  for (const [key, value] of Object.entries(changes)) {
    const path = at ? `${at}.${key}` : key;
    if (value === undefined) continue;
    if (value === null) delete result[key];
    else if (CONTAINERS.has(path) && isObject(value)) result[key] = applyChanges(isObject(result[key]) ? (result[key] as Json) : {}, value, path);
    else result[key] = value;
  }
  return result;
}

/** Overrides without the parts left empty by nulls (a site space that overrides nothing has none). */
function withoutEmptyParts(overrides: Json, at = ''): Json {
  const result: Json = {};
  for (const [key, value] of Object.entries(overrides)) {
    const path = at ? `${at}.${key}` : key;
    const part = CONTAINERS.has(path) && isObject(value);
    const kept = part ? withoutEmptyParts(value, path) : value;
    if (!part || Object.keys(kept as Json).length) result[key] = kept;
  }
  return result;
}

// Parsed settings by the stored text they came from: documents are kept by the site's caches
// while it does not change, so each text is parsed once.
const parsedSites = new WeakMap<SiteDoc, CustomizationSettings>();
const parsedSiteSpaces = new WeakMap<SiteSpaceDoc, { site: CustomizationSettings; settings: CustomizationSettings }>();

/** The site's settings: stored, else the defaults. */
export function customizationOf(site: SiteDoc): CustomizationSettings {
  let settings = parsedSites.get(site);
  if (!settings) {
    settings = site.customization ? siteCustomizationJson.read(site.customization.json) : defaultCustomization();
    parsedSites.set(site, settings);
  }
  return settings;
}

/** Whether a site space overrides anything of its site's customization. */
export const hasOverrides = (siteSpace: SiteSpaceDoc): boolean =>
  Boolean(siteSpace.customization && Object.keys(siteSpaceOverridesJson.read(siteSpace.customization.json)).length);

/** A site space's settings: its site's with its overrides applied (the site's alone if they no longer fit). */
export function siteSpaceCustomizationOf(site: SiteDoc, siteSpace: SiteSpaceDoc): CustomizationSettings {
  const siteSettings = customizationOf(site);
  if (!siteSpace.customization) return siteSettings;
  const kept = parsedSiteSpaces.get(siteSpace);
  if (kept?.site === siteSettings) return kept.settings;
  const applied = settingsSchema.safeParse(applyChanges(siteSettings, siteSpaceOverridesJson.read(siteSpace.customization.json)));
  const settings = applied.success ? applied.data : siteSettings;
  parsedSiteSpaces.set(siteSpace, { site: siteSettings, settings });
  return settings;
}

/** SiteCustomizationSettings: the settings, with when they were last set. */
export function presentCustomization(settings: CustomizationSettings, updatedAt?: Date | null): SiteCustomizationSettings {
  return { ...settings, ...(updatedAt ? { updatedAt: updatedAt.toISOString() } : {}) };
}

/** The public address of a site's uploaded image (on the files host). */
export function siteFileUrl(config: PublishingContext['config'], siteId: string, fileId: string): string {
  return apiUrl(filesBaseUrl(config), `/v1/public/sites/${encodeURIComponent(siteId)}/files/${encodeURIComponent(fileId)}`);
}

/** Where settings may carry an image: a logo or favicon for each theme. */
const IMAGE_FIELDS = [
  ['header', 'logo'],
  ['footer', 'logo'],
  ['favicon', 'icon'],
] as const;

/**
 * `input` with every uploaded image stored (once per site and bytes) and replaced by its
 * address; 400 naming the field for an upload that is not a PNG, JPEG, GIF or WebP image or is
 * too large.
 */
async function storeUploadedImages(ctx: PublishingContext, site: SiteDoc, input: Json): Promise<Json> {
  const result = structuredClone(input);
  for (const [part, field] of IMAGE_FIELDS) {
    const themed = isObject(result[part]) ? (result[part] as Json)[field] : undefined;
    if (!isObject(themed)) continue;
    for (const theme of ['light', 'dark'] as const) {
      const value = themed[theme];
      if (typeof value !== 'string' || !isImageDataUrl(value)) continue;
      const image = decodeImage(`${part}.${field}.${theme}`, value, SITE_IMAGE_MAX_BYTES);
      const id = imageId(site._id, image.data);
      const file: Omit<SiteFileDoc, '_id'> = {
        siteId: site._id,
        organizationId: site.organizationId,
        contentType: image.contentType,
        size: image.data.length,
        data: image.data,
        createdAt: new Date(),
      };
      await ctx.models.SiteFile.updateOne({ _id: id }, { $setOnInsert: file }, { upsert: true });
      themed[theme] = siteFileUrl(ctx.config, site._id, id);
    }
  }
  return result;
}

/** 400 naming the first field the settings get wrong. */
function checkedSettings(settings: Json): CustomizationSettings {
  const parsed = settingsSchema.safeParse(settings);
  if (!parsed.success) throw httpError.badRequest(`Invalid body: ${zodMessage(parsed.error, 'body')}`);
  return parsed.data;
}

/** Replaces the site's settings (parts left out take their defaults); the site as saved. 404 when it is gone meanwhile. */
export async function setSiteCustomization(ctx: PublishingContext, site: SiteDoc, input: Partial<Json>): Promise<SiteDoc> {
  const settings = checkedSettings({ ...defaultCustomization(), ...(await storeUploadedImages(ctx, site, input)) });
  const now = new Date();
  const customization = { json: siteCustomizationJson.write(settings), updatedAt: now };
  const updated = await ctx.models.Site.findOneAndUpdate(
    { _id: site._id },
    { $set: { customization, updatedAt: now } },
    { returnDocument: 'after' },
  ).lean<SiteDoc>();
  if (!updated) throw httpError.notFound('Site');
  await bumpSiteVersions(ctx, [site._id]);
  await removeUnusedImages(ctx, updated);
  return updated;
}

/**
 * Applies `changes` to the site space's overrides (a null puts the site's value back); 400 when
 * its settings would not be valid. The site space as saved.
 */
export async function overrideSiteSpaceCustomization(ctx: PublishingContext, site: SiteDoc, siteSpaceId: string, changes: Json): Promise<SiteSpaceDoc> {
  const siteSpace = await loadSiteSpace(ctx, site, siteSpaceId);
  const before = siteSpace.customization ? siteSpaceOverridesJson.read(siteSpace.customization.json) : {};
  const overrides = withoutEmptyParts(applyChanges(before, await storeUploadedImages(ctx, site, changes)));
  checkedSettings(applyChanges(customizationOf(site), overrides));
  return saveOverrides(ctx, site, siteSpace, Object.keys(overrides).length ? { json: siteSpaceOverridesJson.write(overrides), updatedAt: new Date() } : null);
}

/** Removes the site space's overrides: whether it had any (none for a site space that is not there). */
export async function removeSiteSpaceCustomization(ctx: PublishingContext, site: SiteDoc, siteSpaceId: string): Promise<boolean> {
  const siteSpace = await ctx.models.SiteSpace.findOne({ _id: siteSpaceId, siteId: site._id }).lean<SiteSpaceDoc>();
  if (!siteSpace?.customization) return false;
  await saveOverrides(ctx, site, siteSpace, null);
  return true;
}

async function saveOverrides(
  ctx: PublishingContext,
  site: SiteDoc,
  siteSpace: SiteSpaceDoc,
  customization: SiteSpaceDoc['customization'],
): Promise<SiteSpaceDoc> {
  const updated = await ctx.models.SiteSpace.findOneAndUpdate(
    { _id: siteSpace._id, siteId: site._id },
    { $set: { customization } },
    { returnDocument: 'after' },
  ).lean<SiteSpaceDoc>();
  if (!updated) throw httpError.notFound('Site space');
  await bumpSiteVersions(ctx, [site._id]);
  await removeUnusedImages(ctx, site);
  return updated;
}

/** Deletes the site's uploaded images that neither its settings nor its site spaces' name any more. */
async function removeUnusedImages(ctx: PublishingContext, site: SiteDoc): Promise<void> {
  const texts = [site.customization?.json ?? ''];
  for (const siteSpace of await ctx.models.SiteSpace.find({ siteId: site._id, customization: { $ne: null } }, { customization: 1 }).lean()) {
    texts.push(siteSpace.customization?.json ?? '');
  }
  const named = texts.join('\n');
  const files = await ctx.models.SiteFile.find({ siteId: site._id }, { _id: 1 }).lean();
  const unused = files.map((file) => file._id).filter((id) => !named.includes(`/files/${id}`));
  if (unused.length) await ctx.models.SiteFile.deleteMany({ siteId: site._id, _id: { $in: unused } });
}

/** An uploaded image of the site (to answer with libs/http sendImage); 404 otherwise. */
export async function loadSiteFile(ctx: PublishingContext, siteId: string, fileId: string): Promise<SiteFileDoc> {
  const file = await ctx.models.SiteFile.findOne({ _id: fileId, siteId }).lean();
  if (!file) throw httpError.notFound('File');
  return file;
}
