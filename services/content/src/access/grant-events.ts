import { EVENT_TYPES, type EventSubscription } from '@quire/async';
import type { ContentContext } from '../kernel';
import { removeMemberGrants, removeTeamGrants } from './grants';

/**
 * identity's events that change who holds grants: a member leaving an organization and a
 * team being deleted. Consumer group 'content-grants' (each instance shares the work); the
 * handlers are idempotent deletes, so a redelivery is harmless. The group name belongs to
 * this subscription alone (see EventBus.subscribe).
 */
export function subscribeGrantEvents(ctx: ContentContext): Promise<EventSubscription> {
  return ctx.events.subscribe(
    'content-grants',
    async (event) => {
      const payload = event.payload as { organizationId?: string; userId?: string; teamId?: string };
      const organizationId = payload.organizationId ?? event.organizationId;
      if (!organizationId) return;
      if (event.type === EVENT_TYPES.memberRemoved && payload.userId) {
        await removeMemberGrants(ctx, organizationId, payload.userId);
      } else if (event.type === EVENT_TYPES.teamDeleted && payload.teamId) {
        await removeTeamGrants(ctx, organizationId, payload.teamId);
      }
    },
    { types: [EVENT_TYPES.memberRemoved, EVENT_TYPES.teamDeleted] },
  );
}
