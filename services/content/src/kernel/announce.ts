import type { EventDefinition, EventInput } from '@quire/async';
import type { ContentContext } from './context';

/**
 * Tells the other services what just happened to a space (its organization's event), after the
 * write it describes is durable: a notification that cannot be sent is logged, never turned into
 * an error of that write.
 */
export async function announce<D extends EventDefinition>(
  ctx: ContentContext,
  definition: D,
  payload: EventInput<D> & { organizationId: string; spaceId: string },
): Promise<void> {
  try {
    await ctx.events.publish(definition, payload, { organizationId: payload.organizationId });
  } catch (error) {
    ctx.logger.error({ err: error, type: definition.type, spaceId: payload.spaceId }, 'could not publish an event');
  }
}
