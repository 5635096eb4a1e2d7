import { EVENTS } from '@quire/async';
import { byDocumentIds, documentTag, InvalidatedCache, publishInvalidation, type CacheInvalidation, type Logger, type RedisClient } from '@quire/runtime';
import type { PublishingContext } from './context';

/*
 * A counter per site, moved by every change of what the site shows (its document, sections,
 * groups, site spaces, share links, visitor auth, customization; its spaces going to the trash
 * and back). Published pages cache the site's structure and their HTML under it, so a change
 * shows at once on every replica. Each replica keeps the versions it read (an InvalidatedCache,
 * dropped by the broadcast every move sends on Redis's invalidation channel before it returns),
 * so an unchanged site costs no Redis read at all.
 */

const versionKey = (siteId: string) => `publishing:site:${siteId}:version`;

/** How moves name the versions they drop (a collection of no database: the counters are in Redis). */
const VERSIONS = 'publishing.site_versions';
/** The cache tag of a site's version: what is kept under it goes with every move (shared answers, published/site-view). */
export const siteVersionTag = (siteId: string): string => documentTag(VERSIONS, siteId);

/** A version kept longer than this is read again, should a broadcast have been missed. */
const VERSION_TTL_MS = 60_000;

const caches = new WeakMap<RedisClient, InvalidatedCache<{ version: string }>>();

function versionsOf(ctx: { redis: RedisClient; logger?: Logger }): InvalidatedCache<{ version: string }> {
  let cache = caches.get(ctx.redis);
  if (!cache) {
    cache = new InvalidatedCache(ctx.redis, {
      name: 'site-versions',
      max: 100_000,
      ttlMs: VERSION_TTL_MS,
      select: byDocumentIds(VERSIONS),
      logger: ctx.logger,
    });
    caches.set(ctx.redis, cache);
  }
  return cache;
}

/**
 * A change of what the sites show: their versions move (every replica drops what it keeps of
 * them before this returns, at its next request at the latest), and the change is told (site.changed).
 */
export async function bumpSiteVersions(ctx: Pick<PublishingContext, 'redis' | 'events' | 'logger'>, siteIds: readonly string[]): Promise<void> {
  if (!siteIds.length) return;
  const ids = [...new Set(siteIds)];
  const pipeline = ctx.redis.pipeline();
  for (const id of ids) pipeline.incr(versionKey(id));
  await pipeline.exec();
  const invalidation: CacheInvalidation = { type: 'documents', collection: VERSIONS, ids };
  versionsOf(ctx).invalidate(invalidation);
  await publishInvalidation(ctx.redis, invalidation);
  // Each change is also told on the stream: the addresses the site publishes are recorded from it
  // (domain/site-addresses), on whichever replica takes the event.
  for (const siteId of ids) {
    await ctx.events.publish(EVENTS.siteChanged, { siteId }).catch((error: unknown) => {
      ctx.logger.error({ err: error, siteId }, 'could not publish site.changed');
    });
  }
}

/** The site's version, as this replica keeps it (read from Redis when it keeps none). */
export async function siteVersion(ctx: Pick<PublishingContext, 'redis' | 'logger'>, siteId: string): Promise<string> {
  const { version } = await versionsOf(ctx).get(siteId, async () => ({ version: (await ctx.redis.get(versionKey(siteId))) ?? '0' }));
  return version;
}
