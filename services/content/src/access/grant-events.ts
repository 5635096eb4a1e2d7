import { EVENTS, type EventSubscription } from '@quire/async';
import type { ContentContext } from '../kernel';
import { removeMemberGrants, removeTeamGrants } from './grants';

/**
 * identity's events that change who holds grants: a member leaving an organization and a
 * team being deleted. Consumer group 'content-grants' (each instance shares the work); the
 * handlers are idempotent deletes, so a redelivery is harmless. The group name belongs to
 * this subscription alone (see EventBus.subscribe).
 */
export function subscribeGrantEvents(ctx: ContentContext): Promise<EventSubscription> {
  return ctx.events.subscribe('content-grants', [EVENTS.memberRemoved, EVENTS.teamDeleted], async (event) => {
    if (event.type === EVENTS.memberRemoved.type) await removeMemberGrants(ctx, event.payload.organizationId, event.payload.userId);
    else await removeTeamGrants(ctx, event.payload.organizationId, event.payload.teamId);
  });
}
