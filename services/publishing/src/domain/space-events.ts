import { EVENT_TYPES, type DomainEvent, type EventSubscription } from '@quire/async';
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

/**
 * Keeps sites consistent with content's spaces: a space in the trash hides its site
 * spaces (restoring it shows them again), a purged or transferred space removes them. Idempotent, as
 * at-least-once delivery needs. Reads also drop site spaces whose space content no longer
 * returns, so a late or missed event never breaks a site.
 */
export async function applySpaceEvent(ctx: PublishingContext, event: Pick<DomainEvent, 'type' | 'payload'>): Promise<void> {
  const spaceId = (event.payload as { spaceId?: unknown } | null)?.spaceId;
  if (typeof spaceId !== 'string') return;
  const sites = await sitesShowing(ctx, { spaceId });
  if (event.type === EVENT_TYPES.spacePurged) await detachSpaces(ctx, [spaceId]);
  else if (event.type === EVENT_TYPES.spaceDeleted) await ctx.models.SiteSpace.updateMany({ spaceId }, { $set: { spaceDeleted: true } });
  else if (event.type === EVENT_TYPES.spaceRestored) await ctx.models.SiteSpace.updateMany({ spaceId }, { $set: { spaceDeleted: false } });
  else if (event.type === EVENT_TYPES.spaceTransferred) {
    // A site only shows its own organization's spaces: the old organization's sites let it go.
    const from = (event.payload as { fromOrganizationId?: unknown }).fromOrganizationId;
    if (typeof from === 'string') await ctx.models.SiteSpace.deleteMany({ spaceId, organizationId: from });
  }
  await bumpSiteVersions(ctx, sites);
}

export function subscribeToSpaceEvents(ctx: PublishingContext): Promise<EventSubscription> {
  return ctx.events.subscribe('publishing', (event) => applySpaceEvent(ctx, event), {
    types: [EVENT_TYPES.spaceDeleted, EVENT_TYPES.spacePurged, EVENT_TYPES.spaceRestored, EVENT_TYPES.spaceTransferred],
    retryAfterMs: 5_000,
  });
}
