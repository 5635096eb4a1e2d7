import { httpError } from '@quire/http';
import { withRedisLock } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import type { PublishingContext } from './context';
import { bumpSiteVersions } from './site-version';

/*
 * Every write to a site — the site document, its sections, groups, site spaces, share
 * links, adaptive schema and visitor auth — runs holding the site's short Redis lock, one
 * at a time. Why: FerretDB v1 applies an update as a read-modify-write of the whole
 * document without isolation, so two writes of one site at once lose one of them (a
 * PATCH of the title and a publish: one is gone), and checks such as "is this space
 * already in the site" or "which path is free" cannot be made atomic with the insert
 * that follows them. The lock is not reentrant: take it once, at the top of a request.
 */

type SiteKey = Pick<SiteDoc, '_id' | 'organizationId'>;

const OPTIONS = {
  ttlMs: 30_000,
  waitMs: 15_000,
  onBusy: () => httpError.conflict('The site is busy with other changes; retry'),
};

/**
 * Runs `work` holding the site's lock, with the site as it is once the lock is held (what
 * the request read before may be stale by then); 404 when the site was deleted meanwhile.
 */
export async function withSiteLock<T>(ctx: PublishingContext, site: SiteKey, work: (site: SiteDoc) => Promise<T>): Promise<T> {
  const result = await underSiteLock(ctx, site, work);
  if (!result.found) throw httpError.notFound('Site');
  return result.value;
}

/** Same, for DELETEs: a site deleted meanwhile leaves nothing to do (undefined). */
export async function withSiteLockIfExists<T>(ctx: PublishingContext, site: SiteKey, work: (site: SiteDoc) => Promise<T>): Promise<T | undefined> {
  const result = await underSiteLock(ctx, site, work);
  return result.found ? result.value : undefined;
}

function underSiteLock<T>(ctx: PublishingContext, site: SiteKey, work: (site: SiteDoc) => Promise<T>) {
  return withRedisLock(
    ctx.redis,
    `publishing:lock:site:${site._id}`,
    async (): Promise<{ found: true; value: T } | { found: false }> => {
      const fresh = await ctx.models.Site.findOne({ _id: site._id, organizationId: site.organizationId }).lean();
      if (!fresh) return { found: false };
      try {
        return { found: true, value: await work(fresh) };
      } finally {
        // Whatever the write did (also when it failed half way), published pages read the site again.
        await bumpSiteVersions(ctx, [site._id]);
      }
    },
    { ...OPTIONS, logger: ctx.logger },
  );
}
