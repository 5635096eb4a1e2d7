import { publishInvalidation } from '@quire/runtime';
import type { IdentityContext } from './context';

/*
 * Other services cache identity's answers on their request path (memberships in content and
 * publishing, resolved tokens in the gateway) until identity says they changed. Every write
 * that changes a member's standing (membership, role, disabled state, teams) or a token's
 * principal announces it here, after writing and before replying: the caller's next request,
 * on any replica, sees the change.
 */

/** These members' standing in the organization changed. */
export function membersChanged(ctx: IdentityContext, organizationId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return Promise.resolve();
  return publishInvalidation(ctx.redis, { type: 'membership', organizationId, userIds: [...new Set(userIds)] });
}

/** Possibly every member's standing changed (a team deleted, the organization deleted). */
export function organizationMembersChanged(ctx: IdentityContext, organizationId: string): Promise<void> {
  return publishInvalidation(ctx.redis, { type: 'membership', organizationId });
}

/**
 * Runs writes that change these members' standing, then announces it, also when the writes
 * fail halfway: some of them may have landed.
 */
export async function changingMembers<T>(
  ctx: IdentityContext,
  organizationId: string,
  userIds: readonly string[] | 'all',
  writes: () => Promise<T>,
): Promise<T> {
  const announce = () => (userIds === 'all' ? organizationMembersChanged(ctx, organizationId) : membersChanged(ctx, organizationId, userIds));
  let result: T;
  try {
    result = await writes();
  } catch (error) {
    await announce().catch((announceError) => ctx.logger.warn({ err: announceError }, 'membership invalidation not published'));
    throw error;
  }
  await announce();
  return result;
}

/** The token's principal changed (revoked, rescoped): the gateway forgets it. */
export function tokenChanged(ctx: IdentityContext, tokenHash: string): Promise<void> {
  return publishInvalidation(ctx.redis, { type: 'token', tokenHash });
}
