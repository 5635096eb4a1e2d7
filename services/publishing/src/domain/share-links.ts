import { httpError, keysetPage, type ListQuery } from '@quire/http';
import { newId, newSecret } from '@quire/runtime';
import type { ShareLinkDoc, SiteDoc } from '../db/models';
import { siteSpaceAddress, structureView } from './structure-view';
import type { PublishingContext } from './context';
import { loadStructure } from './structure';
import { withShareKey } from './urls';

export async function createShareLink(ctx: PublishingContext, site: SiteDoc, name: string): Promise<ShareLinkDoc> {
  const link: ShareLinkDoc = {
    _id: newId(),
    siteId: site._id,
    organizationId: site.organizationId,
    name,
    active: true,
    key: newSecret(24),
    createdAt: new Date(),
  };
  await ctx.models.ShareLink.create(link);
  return link;
}

export function listShareLinks(ctx: PublishingContext, site: SiteDoc, query: ListQuery) {
  return keysetPage(ctx.models.ShareLink, { filter: { siteId: site._id }, sortField: 'createdAt', order: 'desc', limit: query.limit, page: query.page });
}

export async function updateShareLink(ctx: PublishingContext, site: SiteDoc, linkId: string, input: { active?: boolean; name?: string }) {
  const link = await ctx.models.ShareLink.findOneAndUpdate({ _id: linkId, siteId: site._id }, { $set: input }, { returnDocument: 'after' }).lean();
  if (!link) throw httpError.notFound('Share link');
  return link;
}

export async function deleteShareLink(ctx: PublishingContext, site: SiteDoc, linkId: string): Promise<void> {
  await ctx.models.ShareLink.deleteOne({ _id: linkId, siteId: site._id });
}

/**
 * The share key given with a read of published addresses, if any: it must open an
 * active share link of this very site, otherwise the request is a 400 naming shareKey
 * (an unknown, revoked or foreign key never yields addresses).
 */
export async function resolveShareKey(ctx: PublishingContext, site: SiteDoc, shareKey: string | undefined): Promise<string | undefined> {
  if (shareKey === undefined) return undefined;
  const link = await ctx.models.ShareLink.findOne({ siteId: site._id, key: shareKey }, { active: 1 }).lean();
  if (!link || !link.active) throw httpError.badRequest('Invalid query: shareKey: not an active share link of this site');
  return shareKey;
}

export interface SharedSpaceAddress {
  resolved: boolean;
  siteId: string;
  publishedUrl: string;
}

/**
 * Where `spaceId` is published on the site an active share link with `shareKey` opens, for
 * content's GET /v1/spaces/{spaceId}?shareKey=. Nothing resolves for an unknown or inactive
 * key, a key of another organization, or a site that does not show the space. The address
 * is that of the space's default variant when it has several, and is empty while the site
 * is unpublished (like urls.published on the site itself).
 */
export async function resolveSharedSpace(
  ctx: PublishingContext,
  input: { spaceId: string; shareKey: string; organizationId: string },
): Promise<SharedSpaceAddress> {
  const none = { resolved: false, siteId: '', publishedUrl: '' };
  const link = await ctx.models.ShareLink.findOne({ key: input.shareKey, organizationId: input.organizationId, active: true }).lean();
  if (!link) return none;
  const site = await ctx.models.Site.findOne({ _id: link.siteId, organizationId: input.organizationId }).lean();
  if (!site) return none;
  const structure = await loadStructure(ctx, site);
  const candidates = structure.siteSpaces.filter((s) => s.spaceId === input.spaceId);
  if (!candidates.length) return none;
  // Addresses need the structure only, not the spaces: content, the caller, has the space.
  const view = structureView(structure, { visible: new Map(), hidden: new Set() }, ctx.config, input.shareKey);
  const chosen = candidates.find((s) => view.defaults.has(s._id)) ?? candidates[0];
  return { resolved: true, siteId: site._id, publishedUrl: site.published ? withShareKey(siteSpaceAddress(view, chosen), input.shareKey) : '' };
}
