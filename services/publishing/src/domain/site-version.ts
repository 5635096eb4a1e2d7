import { EVENTS } from '@quire/async';
import type { PublishingContext } from './context';

/*
 * A counter per site, moved by every change of what the site shows (its document, sections,
 * groups, site spaces, share links, visitor auth; its spaces going to the trash and back).
 * Published pages cache the site's structure and their HTML under it, so a change shows at
 * once on every replica and an unchanged site costs one Redis read.
 */

const versionKey = (siteId: string) => `publishing:site:${siteId}:version`;

export async function bumpSiteVersions(ctx: Pick<PublishingContext, 'redis' | 'events' | 'logger'>, siteIds: readonly string[]): Promise<void> {
  if (!siteIds.length) return;
  const pipeline = ctx.redis.pipeline();
  for (const id of new Set(siteIds)) pipeline.incr(versionKey(id));
  await pipeline.exec();
  // Each change is also told on the stream: the addresses the site publishes are recorded from it
  // (domain/site-addresses), on whichever replica takes the event.
  for (const siteId of new Set(siteIds)) {
    await ctx.events.publish(EVENTS.siteChanged, { siteId }).catch((error: unknown) => {
      ctx.logger.error({ err: error, siteId }, 'could not publish site.changed');
    });
  }
}

export async function siteVersion(ctx: Pick<PublishingContext, 'redis'>, siteId: string): Promise<string> {
  return (await ctx.redis.get(versionKey(siteId))) ?? '0';
}
