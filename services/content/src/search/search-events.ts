import { EVENTS, type EventSubscription } from '@quire/async';
import { HttpError } from '@quire/http';
import type { ContentContext } from '../kernel';
import { loadRevision } from '../revisions';
import { warmRevisionIndex } from './search-index';

/**
 * Warms the search index of a space's new revision (after merges, template applications
 * and Git imports: space.content_updated) so the first search after a change finds it
 * made, when the space is searched at all (see warmRevisionIndex). Consumer group
 * 'content-search-warm', its own subscription (a group belongs to one subscription, see
 * EventBus.subscribe). Warming is an optimisation: a failure is logged and the event
 * acknowledged, and the first search makes the index instead.
 */
export function subscribeSearchWarmup(ctx: ContentContext): Promise<EventSubscription> {
  return ctx.events.subscribe('content-search-warm', [EVENTS.spaceContentUpdated], async ({ payload: { spaceId, revisionId } }) => {
    try {
      const revision = await loadRevision(ctx, revisionId);
      if (revision.spaceId !== spaceId) return;
      await warmRevisionIndex(ctx, revision);
    } catch (error) {
      // A revision purged with its space since: nothing to warm.
      if (error instanceof HttpError && error.status === 404) return;
      ctx.logger.warn({ err: error, spaceId, revisionId }, 'could not warm the search index');
    }
  });
}
