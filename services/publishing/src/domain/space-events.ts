import { EVENTS, type EventOf, type EventSubscription } from '@quire/async';
import type { PublishingContext } from './context';
import { bumpSiteVersions } from './site-version';

/** Removes every site space pointing at the spaces (they are gone for good); returns how many. */
export async function detachSpaces(ctx: PublishingContext, spaceIds: string[]): Promise<number> {
  if (!spaceIds.length) return 0;
  const sites = await sitesShowing(ctx, { spaceId: { $in: spaceIds } });
  const { deletedCount } = await ctx.models.SiteSpace.deleteMany({ spaceId: { $in: spaceIds } });
  await bumpSiteVersions(ctx, sites);
  return deletedCount;
}

async function sitesShowing(ctx: PublishingContext, filter: Record<string, unknown>): Promise<string[]> {
  return (await ctx.models.SiteSpace.find(filter, { siteId: 1 }).lean()).map((s) => s.siteId);
}

/** content's events about spaces that sites follow. */
const SPACE_EVENTS = [EVENTS.spaceDeleted, EVENTS.spacePurged, EVENTS.spaceRestored, EVENTS.spaceTransferred] as const;

/**
 * Keeps sites consistent with content's spaces: a space in the trash hides its site
 * spaces (restoring it shows them again), a purged or transferred space removes them. Idempotent, as
 * at-least-once delivery needs. Reads also drop site spaces whose space content no longer
 * returns, so a late or missed event never breaks a site.
 */
export async function applySpaceEvent(ctx: PublishingContext, event: EventOf<(typeof SPACE_EVENTS)[number]>): Promise<void> {
  const { spaceId } = event.payload;
  const sites = await sitesShowing(ctx, { spaceId });
  if (event.type === EVENTS.spacePurged.type) await detachSpaces(ctx, [spaceId]);
  else if (event.type === EVENTS.spaceDeleted.type) await ctx.models.SiteSpace.updateMany({ spaceId }, { $set: { spaceDeleted: true } });
  else if (event.type === EVENTS.spaceRestored.type) await ctx.models.SiteSpace.updateMany({ spaceId }, { $set: { spaceDeleted: false } });
  // A site only shows its own organization's spaces: the old organization's sites let a transferred one go.
  else await ctx.models.SiteSpace.deleteMany({ spaceId, organizationId: event.payload.fromOrganizationId });
  await bumpSiteVersions(ctx, sites);
}

export function subscribeToSpaceEvents(ctx: PublishingContext): Promise<EventSubscription> {
  return ctx.events.subscribe('publishing', SPACE_EVENTS, (event) => applySpaceEvent(ctx, event), { retryAfterMs: 5_000 });
}
