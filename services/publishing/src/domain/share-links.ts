import { httpError, keysetPage, type ListQuery } from '@quire/http';
import { newId, newSecret } from '@quire/runtime';
import type { ShareLinkDoc, SiteDoc } from '../db/models';
import type { PublishingContext } from './context';

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
