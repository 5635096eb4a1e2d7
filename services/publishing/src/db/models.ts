import { Schema, type Model } from 'mongoose';
import { z } from 'zod';
import { defineModels, storedJson } from '@quire/runtime';

export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;
export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
export type SiteVisibility = (typeof SITE_VISIBILITIES)[number];

export interface SiteDoc {
  _id: string;
  organizationId: string;
  type: (typeof SITE_TYPES)[number];
  title: string;
  visibility: SiteVisibility;
  published: boolean;
  hostname?: string | null;
  basename?: string | null;
  /** Proxy origin ("company.com/docs"); null when the site is not proxied. */
  proxy?: string | null;
  agentsContext: 'excluded' | 'included';
  adaptiveContent: boolean;
  /** The default section; when it points nowhere, the first section in order is the default. */
  defaultSectionId?: string | null;
  /** The default site space among those at the site root (sites without sections). */
  defaultSiteSpaceId?: string | null;
  /** Last position handed out to a section, group or site space of this site ($inc). */
  positionSeq: number;
  /** HS256 key visitor tokens of `visitor-auth` sites are signed with; the OpenID Connect provider visitors may sign in with (domain/oidc.ts). */
  visitorAuth: {
    privateKey: string;
    backend: 'custom';
    fallbackURL?: string | null;
    logoutURL?: string | null;
    oidc?: { issuer: string; clientId: string; sealedClientSecret: string; scopes: string[] } | null;
  };
  /**
   * The adaptive JSON schema, as JSON text: it holds keys such as `$schema` that stored
   * keys may not have (design.md §5).
   */
  adaptiveSchema?: { json: string; updatedAt: Date } | null;
  /** The site's customization (siteCustomizationJson), as JSON text; null: the defaults. */
  customization?: { json: string; updatedAt: Date } | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SiteSectionDoc {
  _id: string;
  siteId: string;
  organizationId: string;
  title: string;
  description?: string | null;
  /** Unique within the site. */
  path: string;
  condition?: string | null;
  icon?: string | null;
  sectionGroupId?: string | null;
  /** The default variant; when it points nowhere, the first variant in order is. */
  defaultSiteSpaceId?: string | null;
  position: number;
  createdAt: Date;
}

export interface SiteSectionGroupDoc {
  _id: string;
  siteId: string;
  organizationId: string;
  title: string;
  icon?: string | null;
  parentId?: string | null;
  position: number;
  createdAt: Date;
}

export interface SiteSpaceDoc {
  _id: string;
  siteId: string;
  organizationId: string;
  /** null: at the root of a site that has no sections. */
  sectionId: string | null;
  spaceId: string;
  /** Unique among the site spaces of the same section (or of the root). */
  path: string;
  condition?: string | null;
  position: number;
  /** The space is in content's trash: hidden until it is restored (or removed when purged). */
  spaceDeleted: boolean;
  /** What this site space's customization overrides of the site's (siteSpaceOverridesJson), as JSON text. */
  customization?: { json: string; updatedAt: Date } | null;
  createdAt: Date;
}

export interface ShareLinkDoc {
  _id: string;
  siteId: string;
  organizationId: string;
  name: string;
  active: boolean;
  /** The secret visitors present (`?share=`); it is part of the link, so it is kept readable. */
  key: string;
  createdAt: Date;
}

/** An image uploaded with a site's customization (a logo, a favicon), served from the files host. */
export interface SiteFileDoc {
  /** A digest of the site's id and the bytes: the same image uploaded again is the same file. */
  _id: string;
  siteId: string;
  organizationId: string;
  contentType: string;
  size: number;
  data: Buffer;
  createdAt: Date;
}

const nullableString = { type: String, default: null };

/** A site's adaptive JSON schema (`SiteDoc.adaptiveSchema.json`), read and written only through this. */
export const adaptiveSchemaJson = storedJson(
  'Site.adaptiveSchema',
  z.looseObject({
    $schema: z.string().optional(),
    type: z.literal('object'),
    properties: z.record(z.string(), z.unknown()),
    additionalProperties: z.literal(false),
  }),
);

const siteSchema = new Schema<SiteDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    type: { type: String, enum: SITE_TYPES, default: 'basic' },
    title: { type: String, required: true },
    visibility: { type: String, enum: SITE_VISIBILITIES, default: 'public' },
    published: { type: Boolean, default: false },
    hostname: nullableString,
    basename: nullableString,
    proxy: nullableString,
    agentsContext: { type: String, enum: ['excluded', 'included'], default: 'included' },
    adaptiveContent: { type: Boolean, default: false },
    defaultSectionId: nullableString,
    defaultSiteSpaceId: nullableString,
    positionSeq: { type: Number, default: 0 },
    visitorAuth: { type: Schema.Types.Mixed, required: true },
    adaptiveSchema: { type: Schema.Types.Mixed, default: null },
    customization: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
siteSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
siteSchema.index({ organizationId: 1, published: 1, createdAt: -1, _id: -1 });
// Published sites are found by their hostname, or by their organization and basename.
siteSchema.index({ hostname: 1, published: 1, createdAt: 1 });
siteSchema.index({ organizationId: 1, basename: 1, published: 1, createdAt: 1 });

const sectionSchema = new Schema<SiteSectionDoc>(
  {
    _id: String,
    siteId: { type: String, required: true },
    organizationId: { type: String, required: true },
    title: { type: String, required: true },
    description: nullableString,
    path: { type: String, required: true },
    condition: nullableString,
    icon: nullableString,
    sectionGroupId: nullableString,
    defaultSiteSpaceId: nullableString,
    position: { type: Number, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
sectionSchema.index({ siteId: 1, path: 1 }, { unique: true });
sectionSchema.index({ siteId: 1, position: 1, _id: 1 });
sectionSchema.index({ siteId: 1, sectionGroupId: 1 });

const groupSchema = new Schema<SiteSectionGroupDoc>(
  {
    _id: String,
    siteId: { type: String, required: true },
    organizationId: { type: String, required: true },
    title: { type: String, required: true },
    icon: nullableString,
    parentId: nullableString,
    position: { type: Number, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
groupSchema.index({ siteId: 1, position: 1, _id: 1 });

const siteSpaceSchema = new Schema<SiteSpaceDoc>(
  {
    _id: String,
    siteId: { type: String, required: true },
    organizationId: { type: String, required: true },
    sectionId: nullableString,
    spaceId: { type: String, required: true },
    path: { type: String, required: true },
    condition: nullableString,
    position: { type: Number, required: true },
    spaceDeleted: { type: Boolean, default: false },
    customization: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
siteSpaceSchema.index({ siteId: 1, sectionId: 1, path: 1 }, { unique: true });
siteSpaceSchema.index({ siteId: 1, position: 1, _id: 1 });
siteSpaceSchema.index({ spaceId: 1 });
siteSpaceSchema.index({ organizationId: 1, spaceId: 1 });

const shareLinkSchema = new Schema<ShareLinkDoc>(
  {
    _id: String,
    siteId: { type: String, required: true },
    organizationId: { type: String, required: true },
    name: { type: String, required: true },
    active: { type: Boolean, default: true },
    key: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
shareLinkSchema.index({ siteId: 1, createdAt: -1, _id: -1 });
shareLinkSchema.index({ siteId: 1, key: 1 }, { unique: true });
// ResolveShareKey finds a link by its key alone (content knows the space, not the site).
shareLinkSchema.index({ key: 1, organizationId: 1 });

const siteRedirectSchema = new Schema<SiteRedirectDoc>(
  {
    _id: String,
    siteId: { type: String, required: true },
    organizationId: { type: String, required: true },
    source: { type: String, required: true },
    key: { type: String, required: true },
    wildcard: { type: Boolean, default: false },
    prefix: nullableString,
    draft: { type: Boolean, default: false },
    captureWildcard: { type: Boolean, default: false },
    permanent: { type: Boolean, default: false },
    destination: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, default: null },
    changedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// One redirect per source among a site's live ones, and one among its drafts; pages that are not found look them up.
siteRedirectSchema.index({ siteId: 1, draft: 1, key: 1 }, { unique: true });
siteRedirectSchema.index({ siteId: 1, draft: 1, wildcard: 1 });
// The list's three orders.
siteRedirectSchema.index({ siteId: 1, draft: 1, createdAt: -1, _id: -1 });
siteRedirectSchema.index({ siteId: 1, draft: 1, changedAt: -1, _id: -1 });
siteRedirectSchema.index({ siteId: 1, draft: 1, source: 1, _id: 1 });

const siteAddressSchema = new Schema<SiteAddressDoc>(
  {
    _id: String,
    siteId: { type: String, required: true },
    address: { type: String, required: true },
    siteSpaceId: { type: String, required: true },
    spaceId: { type: String, required: true },
    pageId: { type: String, required: true },
    recordedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
siteAddressSchema.index({ siteId: 1, address: 1 }, { unique: true });

const siteFileSchema = new Schema<SiteFileDoc>(
  {
    _id: String,
    siteId: { type: String, required: true },
    organizationId: { type: String, required: true },
    contentType: { type: String, required: true },
    size: { type: Number, required: true },
    data: { type: Buffer, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
siteFileSchema.index({ siteId: 1 });

export interface PublishingModels {
  Site: Model<SiteDoc>;
  SiteSection: Model<SiteSectionDoc>;
  SiteSectionGroup: Model<SiteSectionGroupDoc>;
  SiteSpace: Model<SiteSpaceDoc>;
  ShareLink: Model<ShareLinkDoc>;
  SiteRedirect: Model<SiteRedirectDoc>;
  SiteAddress: Model<SiteAddressDoc>;
  SiteFile: Model<SiteFileDoc>;
}

const publishingModels = defineModels<PublishingModels>({
  Site: [siteSchema, 'sites'],
  SiteSection: [sectionSchema, 'site_sections'],
  SiteSectionGroup: [groupSchema, 'site_section_groups'],
  SiteSpace: [siteSpaceSchema, 'site_spaces'],
  ShareLink: [shareLinkSchema, 'share_links'],
  SiteFile: [siteFileSchema, 'site_files'],
  SiteRedirect: [siteRedirectSchema, 'site_redirects'],
  SiteAddress: [siteAddressSchema, 'site_addresses'],
});

export const registerModels = publishingModels.register;
export const modelsOf = publishingModels.of;

/** Where an admin's redirect sends its visitors (GitBook's SiteRedirectDestination). */
export type SiteRedirectDestination =
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string }
  | { kind: 'external'; url: string };

/** A redirect an admin set on a site (GitBook's SiteRedirect). */
export interface SiteRedirectDoc {
  _id: string;
  siteId: string;
  organizationId: string;
  /** The source path as given ("/old/page", "/old/*"). */
  source: string;
  /** The source in its canonical form (each segment decoded, then encoded again): what is unique and looked up. */
  key: string;
  /** A source ending with `*`: what comes before the star (the key without it) is matched as a prefix. */
  wildcard: boolean;
  prefix?: string | null;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: SiteRedirectDestination;
  createdAt: Date;
  /** Absent until the redirect is first updated. */
  updatedAt?: Date | null;
  /** updatedAt, else createdAt: the `updatedAt` order of the list. */
  changedAt: Date;
}

/**
 * An address a site has published (below its root, canonical form: "/install/linux"), and the
 * page it named then: when it names nothing any more, the visitor is sent to where that page is now.
 */
export interface SiteAddressDoc {
  _id: string;
  siteId: string;
  address: string;
  siteSpaceId: string;
  spaceId: string;
  pageId: string;
  recordedAt: Date;
}
