import { createHash } from 'node:crypto';
import { EVENTS, type EventOf, type EventSubscription } from '@quire/async';
import { clientsOf, httpError } from '@quire/http';
import { newId, retryOnDuplicateKey, withRedisLock } from '@quire/runtime';
import type { SiteAddressDoc } from '../db/models';
import type { PublishingContext } from '../domain/context';
import { addressKey, variantPlacements } from '../domain/site-addresses';
import { LIVE, loadStructure } from '../domain/structure';
import { publishedContent, type PublishedContent } from './space-content';

/*
 * Every address a published site has shown, with the page it named (site_addresses): when an
 * address names nothing any more, the visitor is sent to where that page is now (redirects.ts).
 * Addresses are recorded when what a site shows changes — site.changed (every write of a site,
 * its spaces trashed or restored: domain/site-version) and space.content_updated (a merge, an
 * edit) — by whichever replica takes the event, never while a page is served. Recording is an
 * idempotent upsert per address (unique on site and address), under a per-site lock, and
 * skipped when the site's addresses are those recorded last: events delivered twice, or by
 * several replicas, change nothing.
 */

type Named = Pick<SiteAddressDoc, 'siteSpaceId' | 'spaceId' | 'pageId'>;

const LOCK = { ttlMs: 60_000, renewEveryMs: 20_000, waitMs: 30_000 };
/** What the last recording of a site wrote (a hash of its addresses): the same addresses again are skipped. */
const recordedKey = (siteId: string) => `publishing:site:${siteId}:addresses`;
const RECORDED_TTL_SECONDS = 7 * 24 * 3600;
const BATCH = 500;

/**
 * The addresses of every page of every variant of the site (whatever the visitor's conditions),
 * as the site links them and as they also answer: a variant's first page is its root too, and
 * the default section answers by its path as well. The first variant to claim an address keeps it.
 */
export function siteAddresses(structure: Parameters<typeof variantPlacements>[0], contents: Map<string, PublishedContent>): Map<string, Named> {
  const addresses = new Map<string, Named>();
  for (const { siteSpace, prefix, alternates } of variantPlacements(structure)) {
    const content = contents.get(siteSpace.spaceId);
    if (!content) continue;
    const first = content.reading[0] ?? content.pages[0];
    for (const root of [prefix, ...alternates]) {
      for (const page of content.pages) {
        const named = { siteSpaceId: siteSpace._id, spaceId: siteSpace.spaceId, pageId: page.id };
        const paths = page.id === first?.id ? [root, [...root, ...page.path.split('/')]] : [[...root, ...page.path.split('/')]];
        for (const segments of paths) {
          const address = addressKey(segments);
          if (!addresses.has(address)) addresses.set(address, named);
        }
      }
    }
  }
  return addresses;
}

/**
 * Records the addresses a published site shows now (`revisions` fixes the revision of some of
 * its spaces: the one an event announced). Nothing for a site that is not published.
 */
export async function recordSiteAddresses(ctx: PublishingContext, siteId: string, revisions: Record<string, string> = {}): Promise<number> {
  const site = await ctx.models.Site.findOne({ _id: siteId, published: true }).lean();
  if (!site) return 0;
  const structure = await loadStructure(ctx, site);
  const ids = [...new Set(structure.siteSpaces.map((s) => s.spaceId))];
  if (!ids.length) return 0;
  const { spaces } = await clientsOf(ctx).content.batchGetSpaces({ ids, includeDeleted: false, lean: true });
  const contents = new Map<string, PublishedContent>();
  await Promise.all(
    spaces
      .filter((space) => space.organizationId === site.organizationId && !space.deleteTime)
      .map(async (space) => {
        const revisionId = revisions[space.id] ?? space.revisionId;
        contents.set(space.id, await publishedContent(ctx, { id: space.id, revisionId, updated: space.updateTime?.toISOString() ?? '' }));
      }),
  );
  const addresses = siteAddresses(structure, contents);
  const hash = createHash('sha256');
  for (const [address, named] of [...addresses].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${address}\n${named.siteSpaceId}\n${named.pageId}\n`);
  const digest = hash.digest('base64url');
  if ((await ctx.redis.get(recordedKey(siteId))) === digest) return 0;
  return withRedisLock(
    ctx.redis,
    `publishing:lock:site-addresses:${siteId}`,
    async () => {
      const known = new Map(
        (await ctx.models.SiteAddress.find({ siteId }, { address: 1, siteSpaceId: 1, pageId: 1 }).lean()).map((row) => [row.address, row] as const),
      );
      const changed = [...addresses].filter(([address, named]) => {
        const row = known.get(address);
        return !row || row.siteSpaceId !== named.siteSpaceId || row.pageId !== named.pageId;
      });
      const recordedAt = new Date();
      for (let at = 0; at < changed.length; at += BATCH) {
        const ops = changed.slice(at, at + BATCH).map(([address, named]) => ({
          updateOne: {
            filter: { siteId, address },
            update: { $set: { ...named, recordedAt }, $setOnInsert: { _id: newId() } },
            upsert: true,
          },
        }));
        // Upserts of one address at once (another recorder without the lock: its TTL ran out) meet on the unique index: again, as updates.
        await retryOnDuplicateKey(() => ctx.models.SiteAddress.bulkWrite(ops, { ordered: false }));
      }
      await ctx.redis.set(recordedKey(siteId), digest, 'EX', RECORDED_TTL_SECONDS);
      return changed.length;
    },
    { ...LOCK, onBusy: () => httpError.conflict(`The addresses of site ${siteId} are being recorded`), logger: ctx.logger },
  );
}

const ADDRESS_EVENTS = [EVENTS.siteChanged, EVENTS.spaceContentUpdated] as const;

/** Records the addresses of the site an event names, or of every site showing the space whose content it announces. */
export async function recordFromEvent(ctx: PublishingContext, event: EventOf<(typeof ADDRESS_EVENTS)[number]>): Promise<void> {
  if (event.type === EVENTS.siteChanged.type) {
    await recordSiteAddresses(ctx, event.payload.siteId);
    return;
  }
  const { spaceId, revisionId } = event.payload;
  const showing = await ctx.models.SiteSpace.find({ spaceId, ...LIVE }, { siteId: 1 }).lean();
  for (const siteId of new Set(showing.map((s) => s.siteId))) await recordSiteAddresses(ctx, siteId, { [spaceId]: revisionId });
}

const BACKFILL_KEY = 'publishing:site-addresses:backfill';
const BACKFILL_RUNNING_SECONDS = 3600;

/**
 * Records the addresses of every site already published when the deployment first runs this
 * (sites published before addresses were recorded), once across replicas: the first to start
 * takes it; one that stops half way leaves it to a replica starting after the mark expires.
 */
export async function backfillSiteAddresses(ctx: PublishingContext): Promise<void> {
  if (!(await ctx.redis.set(BACKFILL_KEY, 'running', 'EX', BACKFILL_RUNNING_SECONDS, 'NX'))) return;
  let after = '';
  for (;;) {
    const sites = await ctx.models.Site.find({ published: true, _id: { $gt: after } }, { _id: 1 })
      .sort({ _id: 1 })
      .limit(100)
      .lean();
    if (!sites.length) break;
    for (const site of sites) {
      await recordSiteAddresses(ctx, site._id).catch((error: unknown) =>
        ctx.logger.warn({ err: error, siteId: site._id }, 'could not record the addresses of a site'),
      );
    }
    after = sites[sites.length - 1]._id;
  }
  await ctx.redis.set(BACKFILL_KEY, 'done');
}

/** The subscription that keeps every published site's addresses recorded (one consumer group across replicas). */
export function subscribeToAddressChanges(ctx: PublishingContext): Promise<EventSubscription> {
  void backfillSiteAddresses(ctx).catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not record the addresses of published sites'));
  return ctx.events.subscribe('publishing-site-addresses', ADDRESS_EVENTS, (event) => recordFromEvent(ctx, event), { retryAfterMs: 5_000 });
}
