import type { ContentContext } from './context';

/**
 * Tells the other services what just happened, after the write it describes is durable: a
 * notification that cannot be sent is logged, never turned into an error of that write.
 */
export async function announce(ctx: ContentContext, event: { type: string; organizationId: string; payload: Record<string, unknown> }): Promise<void> {
  try {
    await ctx.events.publish(event);
  } catch (error) {
    ctx.logger.error({ err: error, type: event.type, spaceId: event.payload.spaceId }, 'could not publish an event');
  }
}
