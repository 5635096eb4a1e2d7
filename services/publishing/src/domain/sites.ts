import { containsText, httpError, keysetPage, type ListQuery } from '@quire/http';
import { findByIds, newId, newSecret, reachedIds, withRedisLock } from '@quire/runtime';
import { adaptiveSchemaJson, type SiteDoc, type SiteVisibility } from '../db/models';
import type { OrgAccess } from './access';
import { defaultAdaptiveSchema, type AdaptiveJsonSchema } from './adaptive-schema';
import type { PublishingContext } from './context';
import { addSiteSpaces } from './site-spaces';
import { fetchSpaces } from './spaces';
import { LIVE } from './structure';

export interface CreateSiteInput {
  type?: SiteDoc['type'];
  title?: string;
  visibility?: SiteVisibility;
  spaces?: string[];
}

export async function createSite(ctx: PublishingContext, access: OrgAccess, input: CreateSiteInput): Promise<SiteDoc> {
  const now = new Date();
  const site: SiteDoc = {
    _id: newId(),
    organizationId: access.organizationId,
    type: input.type ?? 'basic',
    title: input.title ?? 'Untitled site',
    visibility: input.visibility ?? 'public',
    published: false,
    hostname: null,
    basename: null,
    proxy: null,
    agentsContext: 'included',
    adaptiveContent: false,
    defaultSectionId: null,
    defaultSiteSpaceId: null,
    positionSeq: 0,
    visitorAuth: { privateKey: newSecret(32), backend: 'custom' },
    adaptiveSchema: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.models.Site.create(site);
  if (input.spaces?.length) {
    try {
      await addSiteSpaces(
        ctx,
        access,
        site,
        [...new Set(input.spaces)].map((spaceId) => ({ spaceId, sectionId: null })),
        'spaces',
      );
    } catch (error) {
      // The site was created for these spaces: without them it is not what was asked for.
      await deleteSite(ctx, site._id);
      throw error;
    }
  }
  return (await ctx.models.Site.findById(site._id).lean()) ?? site;
}

export interface SiteFilters {
  space?: string;
  title?: string;
  published?: boolean;
}

export async function listSites(ctx: PublishingContext, access: OrgAccess, filters: SiteFilters, query: ListQuery) {
  const filter: Record<string, unknown> = { organizationId: access.organizationId };
  if (filters.published !== undefined) filter.published = filters.published;
  if (filters.title) filter.title = containsText(filters.title);
  if (filters.space) {
    // Which sites show a space is the space's business: nothing for a space the caller cannot open.
    const visible = await fetchSpaces(ctx, access.organizationId, [filters.space], access.userId);
    const using = visible.has(filters.space)
      ? await ctx.models.SiteSpace.find({ organizationId: access.organizationId, spaceId: filters.space, ...LIVE }, { siteId: 1 }).lean()
      : [];
    filter._id = { $in: [...new Set(using.map((s) => s.siteId))] };
  }
  // An installation lists only the sites its installation covers.
  const reached = reachedIds(access.installationReach, 'sites');
  if (reached) {
    const candidates = (filter._id as { $in: string[] } | undefined)?.$in ?? reached;
    filter._id = { $in: candidates.filter((id) => reached.includes(id)) };
  }
  return keysetPage(ctx.models.Site, { filter, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
}

/**
 * Number of site spaces of each site the caller sees, so that Site.siteSpaces agrees with
 * the site-spaces list they get: one query and one BatchGetSpaces for all the sites.
 */
export async function countSiteSpaces(ctx: PublishingContext, access: OrgAccess, siteIds: string[]): Promise<Map<string, number>> {
  const counts = new Map(siteIds.map((id) => [id, 0]));
  if (!siteIds.length) return counts;
  const rows = await ctx.models.SiteSpace.find({ siteId: { $in: siteIds }, ...LIVE }, { siteId: 1, spaceId: 1 }).lean();
  const visible = await fetchSpaces(
    ctx,
    access.organizationId,
    rows.map((row) => row.spaceId),
    access.userId,
  );
  for (const row of rows) if (visible.has(row.spaceId)) counts.set(row.siteId, (counts.get(row.siteId) ?? 0) + 1);
  return counts;
}

export interface UpdateSiteInput {
  title?: string;
  visibility?: SiteVisibility;
  basename?: string;
  hostname?: string | null;
  proxy?: string | null;
  agentsContext?: SiteDoc['agentsContext'];
  adaptiveContent?: { enabled: boolean };
  defaultSiteSpace?: string;
  defaultSiteSection?: string;
}

export async function updateSite(ctx: PublishingContext, site: SiteDoc, input: UpdateSiteInput): Promise<SiteDoc> {
  const set: Partial<SiteDoc> = { updatedAt: new Date() };
  if (input.title !== undefined) set.title = input.title;
  if (input.visibility !== undefined) set.visibility = input.visibility;
  if (input.basename !== undefined) set.basename = input.basename;
  if (input.hostname !== undefined) set.hostname = input.hostname;
  if (input.proxy !== undefined) set.proxy = input.proxy;
  if (input.agentsContext !== undefined) set.agentsContext = input.agentsContext;
  if (input.adaptiveContent !== undefined) set.adaptiveContent = input.adaptiveContent.enabled;

  if (input.defaultSiteSection !== undefined) {
    const section = await ctx.models.SiteSection.exists({ _id: input.defaultSiteSection, siteId: site._id });
    if (!section) throw httpError.badRequest('Invalid body: defaultSiteSection: not a section of this site');
    set.defaultSectionId = input.defaultSiteSection;
  }
  if (input.defaultSiteSpace !== undefined) {
    const siteSpace = await ctx.models.SiteSpace.findOne({ _id: input.defaultSiteSpace, siteId: site._id, ...LIVE }).lean();
    if (!siteSpace) throw httpError.badRequest('Invalid body: defaultSiteSpace: not a site space of this site');
    // The default of the container it is in: the root, or its section.
    if (siteSpace.sectionId) await ctx.models.SiteSection.updateOne({ _id: siteSpace.sectionId }, { $set: { defaultSiteSpaceId: siteSpace._id } });
    else set.defaultSiteSpaceId = siteSpace._id;
  }
  const write = async () => {
    const updated = await ctx.models.Site.findOneAndUpdate({ _id: site._id }, { $set: set }, { returnDocument: 'after' }).lean();
    if (!updated) throw httpError.notFound('Site');
    return updated;
  };
  // A hostname serves one site, and a basename names one site of its organization: each is
  // checked and taken under its own lock (two sites may ask for it at once, each under its
  // site's lock only).
  const claims: Claim[] = [];
  const { hostname, basename } = input;
  if (hostname && hostname !== site.hostname) {
    claims.push({
      lock: `hostname:${hostname}`,
      taken: () => ctx.models.Site.exists({ hostname, _id: { $ne: site._id } }),
      message: 'hostname: another site already uses this hostname',
    });
  }
  if (basename && basename !== site.basename) {
    claims.push({
      lock: `basename:${site.organizationId}:${basename}`,
      taken: () => ctx.models.Site.exists({ organizationId: site.organizationId, basename, _id: { $ne: site._id } }),
      message: 'basename: another site of this organization already uses this basename',
    });
  }
  return claiming(ctx, claims, write);
}

interface Claim {
  lock: string;
  taken: () => Promise<unknown>;
  message: string;
}

/** Runs `work` holding every claim's lock, once none of them is taken (else a 409 with its message). */
function claiming<T>(ctx: PublishingContext, claims: Claim[], work: () => Promise<T>): Promise<T> {
  const [claim, ...rest] = claims;
  if (!claim) return work();
  return withRedisLock(
    ctx.redis,
    `publishing:lock:${claim.lock}`,
    async () => {
      if (await claim.taken()) throw httpError.conflict(claim.message);
      return claiming(ctx, rest, work);
    },
    {
      ttlMs: 30_000,
      waitMs: 15_000,
      onBusy: () => httpError.conflict(`${claim.message.split(':')[0]}: being claimed by another change; retry`),
      logger: ctx.logger,
    },
  );
}

export async function setPublished(ctx: PublishingContext, site: SiteDoc, published: boolean): Promise<SiteDoc> {
  const updated = await ctx.models.Site.findOneAndUpdate({ _id: site._id }, { $set: { published, updatedAt: new Date() } }, { returnDocument: 'after' }).lean();
  if (!updated) throw httpError.notFound('Site');
  return updated;
}

/** Removes the site first (it stops resolving at once), then what belonged to it. */
export async function deleteSite(ctx: PublishingContext, siteId: string): Promise<void> {
  await ctx.models.Site.deleteOne({ _id: siteId });
  await Promise.all([
    ctx.models.SiteSection.deleteMany({ siteId }),
    ctx.models.SiteSectionGroup.deleteMany({ siteId }),
    ctx.models.SiteSpace.deleteMany({ siteId }),
    ctx.models.ShareLink.deleteMany({ siteId }),
    ctx.models.SiteFile.deleteMany({ siteId }),
    ctx.models.SiteRedirect.deleteMany({ siteId }),
    ctx.models.SiteAddress.deleteMany({ siteId }),
  ]);
}

/** The sites with these ids (other services' batched lookups; ids not found are left out). */
export async function getSites(ctx: PublishingContext, ids: string[]): Promise<SiteDoc[]> {
  return findByIds(ctx.models.Site, ids);
}

/** Sites of each organization (those without sites absent), in one aggregation over the distinct ids. */
export async function countSitesOf(ctx: PublishingContext, organizationIds: string[]): Promise<Map<string, number>> {
  const unique = [...new Set(organizationIds)];
  if (unique.length === 0) return new Map();
  const grouped = await ctx.models.Site.aggregate<{ _id: string; n: number }>([
    { $match: { organizationId: { $in: unique } } },
    { $group: { _id: '$organizationId', n: { $sum: 1 } } },
  ]);
  return new Map(grouped.map((g) => [g._id, g.n]));
}

/** The site of an organization, if it exists (DELETEs under a site answer 204 when it does not). */
export async function findSite(ctx: PublishingContext, organizationId: string, siteId: string): Promise<SiteDoc | undefined> {
  return (await ctx.models.Site.findOne({ _id: siteId, organizationId }).lean<SiteDoc>()) ?? undefined;
}

/** The site's adaptive schema: the one set, else the default. */
export function adaptiveSchemaOf(site: SiteDoc): AdaptiveJsonSchema {
  return site.adaptiveSchema ? adaptiveSchemaJson.read(site.adaptiveSchema.json) : defaultAdaptiveSchema();
}

/** Stores a validated adaptive schema on the site; 404 when the site is gone meanwhile. */
export async function setAdaptiveSchema(ctx: PublishingContext, site: SiteDoc, schema: AdaptiveJsonSchema): Promise<SiteDoc> {
  const adaptiveSchema = { json: adaptiveSchemaJson.write(schema), updatedAt: new Date() };
  const updated = await ctx.models.Site.findOneAndUpdate({ _id: site._id }, { $set: { adaptiveSchema } }, { returnDocument: 'after' }).lean<SiteDoc>();
  if (!updated) throw httpError.notFound('Site');
  return updated;
}
