import { EVENTS, type EventOf, type EventSubscription } from '@quire/async';
import { documentCacheOf } from '@quire/runtime';
import type { InstallationDoc, IntegrationDoc, TargetInstallationDoc } from '../db/models';
import type { IntegrationsContext } from './context';
import { derivedEventId, recordEvents } from './events';
import { scopesInForce } from './installation-access';

/*
 * What happens elsewhere, from the cross-service event stream, becomes integration events: a
 * space's primary content moving (an edit, a merge, an import) is `space_content_updated` for
 * every installation on that space, or on all the spaces of its organization; so are
 * `space_visibility_updated` and `space_gitsync_started`/`_completed` (one of each per Git
 * operation). The stream
 * delivers at least once and a merge is announced twice (`change_request.merged` and
 * `space.content_updated`): the event id derives from the installation, the space and the new
 * revision, so each installation gets one event per revision whatever arrives.
 *
 * A page view of a published site (one of a `site.views` event's) is `site_view` for every
 * installation on that site, or on all the sites of its organization: one per view, its id
 * derived from the stream event's and the view's place in it, so a redelivered view is recorded once.
 * A visitor's rating of a page (`page.feedback`) is `page_feedback` for those of them whose
 * installer approved `page:feedback:read`.
 */

const INTAKE_EVENTS = [
  EVENTS.spaceContentUpdated,
  EVENTS.changeRequestMerged,
  EVENTS.spaceVisibilityUpdated,
  EVENTS.gitSyncStarted,
  EVENTS.gitSyncCompleted,
  EVENTS.spacePurged,
  EVENTS.spaceTransferred,
  EVENTS.siteViewed,
  EVENTS.pageFeedback,
] as const;

/** A stream event the intake takes, its payload parsed. */
export type IntakeEvent = EventOf<(typeof INTAKE_EVENTS)[number]>;

type TargetedInstallation = Pick<InstallationDoc, '_id' | 'integrationName' | 'organizationId'>;

/**
 * The installations a space's (or a site's) events go to: on that space, or on every space of its
 * organization (`spaceSelection: 'all'`; `siteSelection` for a site); paused ones aside.
 */
async function installationsOn(ctx: IntegrationsContext, kind: 'space' | 'site', organizationId: string, targetId: string): Promise<TargetedInstallation[]> {
  const selection = kind === 'space' ? { spaceSelection: 'all' as const } : { siteSelection: 'all' as const };
  // Every page view of a site asks this: kept in process (the document cache), dropped by any
  // write to installations, so a view costs no query while they do not change.
  const cache = documentCacheOf(ctx.redis, ctx.logger);
  const [targets, everywhere] = await Promise.all([
    cache.query(ctx.models.TargetInstallation, `on:${kind}:${targetId}`, () =>
      ctx.models.TargetInstallation.find({ kind, targetId }).lean<TargetInstallationDoc[]>(),
    ),
    cache.query(ctx.models.Installation, `all:${kind}:${organizationId}`, () =>
      ctx.models.Installation.find({ organizationId, ...selection }).lean<InstallationDoc[]>(),
    ),
  ]);
  const found = new Map<string, TargetedInstallation>();
  for (const installation of everywhere) if (installation.status !== 'paused') found.set(installation._id, installation);
  for (const target of targets) {
    // A space transferred elsewhere keeps no installation of its former organization; another
    // organization's installation on a site of that id never hears of this one's views.
    if (target.organizationId !== organizationId || target.status === 'paused') continue;
    found.set(target.installationId, { _id: target.installationId, integrationName: target.integrationName, organizationId: target.organizationId });
  }
  if (targets.length) {
    // The installation above a space or site installation may be paused as a whole (read
    // through the cache too: dropped by any write of it).
    const above = await cache.findByIds<InstallationDoc>(ctx.models.Installation, [...new Set(targets.map((target) => target.installationId))]);
    for (const installation of above) if (installation.status === 'paused') found.delete(installation._id);
  }
  return [...found.values()];
}

/** Records `space_content_updated` for each installation on the space; returns how many were new. */
export function spaceContentUpdated(ctx: IntegrationsContext, input: { organizationId: string; spaceId: string; revisionId: string }): Promise<number> {
  // The stream does not say who made the change.
  return spaceEvent(ctx, { ...input, type: 'space_content_updated', key: input.revisionId, fields: { revisionId: input.revisionId, updatedBy: [] } });
}

/**
 * Records a space event for each installation on the space: `fields` complete GitBook's event
 * payload; `key` makes its id (one event per installation and key, whatever the stream repeats).
 */
async function spaceEvent(
  ctx: IntegrationsContext,
  input: { organizationId: string; spaceId: string; type: string; key: string; fields: Record<string, unknown> },
): Promise<number> {
  const installations = await installationsOn(ctx, 'space', input.organizationId, input.spaceId);
  return recordForEach(ctx, installations, { type: input.type, subject: { spaceId: input.spaceId }, key: input.key, fields: input.fields });
}

type Happening = { type: string; subject: { spaceId: string } | { siteId: string }; key: string; fields: Record<string, unknown> };

/** GitBook's event `type` about `subject` (a space or a site) for each of `installations`: one per installation and `key`, `fields` completing its payload. */
function eventsFor(installations: TargetedInstallation[], event: Happening) {
  const subjectId = 'spaceId' in event.subject ? event.subject.spaceId : event.subject.siteId;
  return installations.map((installation) => ({
    integrationName: installation.integrationName,
    installationId: installation._id,
    organizationId: installation.organizationId,
    payload: {
      eventId: derivedEventId(event.type, installation._id, subjectId, event.key),
      type: event.type,
      installationId: installation._id,
      ...event.subject,
      ...event.fields,
    },
  }));
}

/** Records `event` for each of `installations` (eventsFor); returns how many were new. */
function recordForEach(ctx: IntegrationsContext, installations: TargetedInstallation[], event: Happening): Promise<number> {
  return recordEvents(ctx, eventsFor(installations, event));
}

/**
 * Records `site_view` (GitBook's SiteViewEvent) for each installation on the viewed site, one per
 * view of the stream event; returns how many were new. Each view is its own event: its id derives
 * from the stream event's and the view's index, so a redelivery records nothing new. The visitor is
 * GitBook's EventVisitor, its own fields only; cookies are never passed on (a site's cookies hold
 * its share key and the visitor's token, secrets no third party may read).
 */
async function siteViewed(ctx: IntegrationsContext, event: EventOf<typeof EVENTS.siteViewed>): Promise<number> {
  const { organizationId, siteId, views } = event.payload;
  const installations = await installationsOn(ctx, 'site', organizationId, siteId);
  if (!installations.length) return 0;
  return recordEvents(
    ctx,
    views.flatMap(({ siteSpaceId, spaceId, pageId, url, referrer, visitor: { anonymousId, userAgent, ip, language } }, index) =>
      eventsFor(installations, {
        type: 'site_view',
        subject: { siteId },
        key: index === 0 ? event.id : `${event.id}:${index}`,
        fields: {
          spaceId,
          siteSpaceId,
          pageId,
          visitor: { anonymousId, cookies: {}, userAgent, ip, ...(language ? { language } : {}) },
          url,
          referrer: referrer ?? '',
        },
      }),
    ),
  );
}

/**
 * Records `page_feedback` (GitBook's PageFeedbackEvent) for each installation on the rated page's
 * site whose tokens act with `page:feedback:read`: a visitor's rating is theirs to read only when
 * the installer approved it. Its id derives from the stream event's. Returns how many were new.
 */
async function pageRated(ctx: IntegrationsContext, event: EventOf<typeof EVENTS.pageFeedback>): Promise<number> {
  const { organizationId, siteId, spaceId, pageId, rating, url, referrer, visitor } = event.payload;
  const onSite = await installationsOn(ctx, 'site', organizationId, siteId);
  if (!onSite.length) return 0;
  const cache = documentCacheOf(ctx.redis, ctx.logger);
  const [installations, integrations] = await Promise.all([
    cache.findByIds<InstallationDoc>(
      ctx.models.Installation,
      onSite.map((installation) => installation._id),
    ),
    cache.findByIds<IntegrationDoc>(ctx.models.Integration, [...new Set(onSite.map((installation) => installation.integrationName))]),
  ]);
  const integrationOf = new Map(integrations.map((integration) => [integration._id, integration]));
  const reading = new Set(
    installations
      .filter((installation) => {
        const integration = integrationOf.get(installation.integrationName);
        return integration !== undefined && scopesInForce(installation, integration).includes('page:feedback:read');
      })
      .map((installation) => installation._id),
  );
  const { anonymousId, userAgent, ip, language } = visitor;
  return recordForEach(
    ctx,
    onSite.filter((installation) => reading.has(installation._id)),
    {
      type: 'page_feedback',
      subject: { siteId },
      key: event.id,
      fields: {
        spaceId,
        pageId,
        feedback: { rating },
        visitor: { anonymousId, cookies: {}, userAgent, ip, ...(language ? { language } : {}) },
        url,
        referrer: referrer ?? '',
      },
    },
  );
}

/** Applies one stream event (idempotent: at-least-once delivery may repeat it). */
export async function applyStreamEvent(ctx: IntegrationsContext, event: IntakeEvent): Promise<void> {
  switch (event.type) {
    case EVENTS.siteViewed.type:
      await siteViewed(ctx, event);
      return;
    case EVENTS.pageFeedback.type:
      await pageRated(ctx, event);
      return;
    case EVENTS.spaceContentUpdated.type:
    case EVENTS.changeRequestMerged.type: {
      const { organizationId, spaceId, revisionId } = event.payload;
      await spaceContentUpdated(ctx, { organizationId, spaceId, revisionId });
      return;
    }
    case EVENTS.spaceVisibilityUpdated.type: {
      const { organizationId, spaceId, previousVisibility, visibility } = event.payload;
      // Two changes to the same visibility are two events: the stream event's own id tells them apart.
      await spaceEvent(ctx, { organizationId, spaceId, type: 'space_visibility_updated', key: event.id, fields: { previousVisibility, visibility } });
      return;
    }
    case EVENTS.gitSyncStarted.type: {
      const { organizationId, spaceId, operationId, revisionId, commitId } = event.payload;
      await spaceEvent(ctx, { organizationId, spaceId, type: 'space_gitsync_started', key: operationId, fields: { revisionId, commitId } });
      return;
    }
    case EVENTS.gitSyncCompleted.type: {
      const { organizationId, spaceId, operationId, state, revisionId, commitId } = event.payload;
      await spaceEvent(ctx, { organizationId, spaceId, type: 'space_gitsync_completed', key: operationId, fields: { state, revisionId, commitId } });
      return;
    }
    case EVENTS.spacePurged.type:
      await ctx.models.TargetInstallation.deleteMany({ kind: 'space', targetId: event.payload.spaceId });
      return;
    case EVENTS.spaceTransferred.type:
      await ctx.models.TargetInstallation.deleteMany({ kind: 'space', targetId: event.payload.spaceId, organizationId: event.payload.fromOrganizationId });
  }
}

/**
 * Stream events each process records at once: recording waits on the datastore, and one at a time
 * it held event deliveries below what the queue and workers carry (applyStreamEvent is idempotent).
 */
const INTAKE_CONCURRENCY = 8;

/** Subscribes the service to the stream (one consumer group shared by its replicas). */
export function subscribeToStreamEvents(ctx: IntegrationsContext): Promise<EventSubscription> {
  return ctx.events.subscribe('integrations', INTAKE_EVENTS, (event) => applyStreamEvent(ctx, event), { retryAfterMs: 5_000, concurrency: INTAKE_CONCURRENCY });
}
