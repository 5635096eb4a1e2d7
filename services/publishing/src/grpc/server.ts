import type { publishing } from '@quire/proto';
import { GrpcError, grpcStatus, findByIds, checkBatch } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import type { PublishingContext } from '../domain/context';
import { resolveSharedSpace } from '../domain/share-links';
import { detachSpaces } from '../domain/space-events';

const toSite = (site: SiteDoc): publishing.Site => ({
  id: site._id,
  organizationId: site.organizationId,
  title: site.title,
  visibility: site.visibility,
  published: site.published,
  createTime: site.createdAt,
});

/** Sites of each organization (those without sites absent), in one aggregation over the distinct ids. */
async function countSitesOf(ctx: PublishingContext, organizationIds: string[]): Promise<Map<string, number>> {
  const unique = [...new Set(organizationIds)];
  if (unique.length === 0) return new Map();
  const grouped = await ctx.models.Site.aggregate<{ _id: string; n: number }>([
    { $match: { organizationId: { $in: unique } } },
    { $group: { _id: '$organizationId', n: { $sum: 1 } } },
  ]);
  return new Map(grouped.map((g) => [g._id, g.n]));
}

/** PublishingService over gRPC: sites and site counts for other services, detaching deleted spaces, share keys for content. */
export function publishingGrpc(ctx: PublishingContext): publishing.PublishingServiceImplementation {
  return {
    async batchGetSites(request) {
      const ids = checkBatch(request.ids);
      const sites = await findByIds(ctx.models.Site, ids);
      return { sites: sites.map(toSite) };
    },

    async detachSpaces(request) {
      const detached = await detachSpaces(ctx, checkBatch(request.spaceIds));
      return { detachedCount: detached };
    },

    async batchCountSites(request) {
      const ids = checkBatch(request.organizationIds);
      if (ids.some((id) => !id)) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, 'organization_ids must not be empty strings');
      const counts = await countSitesOf(ctx, ids);
      return { counts: ids.map((id) => counts.get(id) ?? 0) };
    },

    async resolveShareKey(request) {
      for (const [field, value] of [
        ['space_id', request.spaceId],
        ['share_key', request.shareKey],
        ['organization_id', request.organizationId],
      ]) {
        if (!value) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `${field} is required`);
      }
      return resolveSharedSpace(ctx, request);
    },
  };
}
