import type { publishing } from '@quire/proto';
import { GrpcError, grpcStatus } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import type { PublishingContext } from '../domain/context';
import { resolveSharedSpace } from '../domain/share-links';
import { detachSpaces } from '../domain/space-events';

/** Largest batch one call may ask for; callers split bigger ones. */
const MAX_BATCH = 1000;

function checkBatch(ids: string[]): string[] {
  if (ids.length > MAX_BATCH) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `at most ${MAX_BATCH} ids per call`);
  return ids;
}

const toSite = (site: SiteDoc): publishing.Site => ({
  id: site._id,
  organizationId: site.organizationId,
  title: site.title,
  visibility: site.visibility,
  published: site.published,
  createTime: site.createdAt,
});

/** PublishingService over gRPC: sites for other services, detaching deleted spaces, share keys for content. */
export function publishingGrpc(ctx: PublishingContext): publishing.PublishingServiceImplementation {
  return {
    async batchGetSites(request) {
      const ids = checkBatch(request.ids);
      const sites = ids.length ? await ctx.models.Site.find({ _id: { $in: ids } }).lean() : [];
      return { sites: sites.map(toSite) };
    },

    async detachSpaces(request) {
      const detached = await detachSpaces(ctx, checkBatch(request.spaceIds));
      return { detachedCount: detached };
    },

    async resolveShareKey(request) {
      for (const [field, value] of [['space_id', request.spaceId], ['share_key', request.shareKey], ['organization_id', request.organizationId]]) {
        if (!value) throw new GrpcError(grpcStatus.INVALID_ARGUMENT, `${field} is required`);
      }
      return resolveSharedSpace(ctx, request);
    },
  };
}
