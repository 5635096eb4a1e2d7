import { httpError } from '@quire/http';
import { isDuplicateKeyError, newId, tokenScope, findByIds } from '@quire/runtime';
import type { UserDoc } from '../db/models';
import type { IdentityContext } from './context';
import { installationOrganizationOf } from './installations';
import { organizationPermissions } from './permissions';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The user with this e-mail, created when missing (race-safe through the unique index). */
export async function findOrCreateUser(ctx: IdentityContext, input: { email: string; displayName?: string }): Promise<UserDoc> {
  const email = normalizeEmail(input.email);
  const existing = await ctx.models.User.findOne({ email }).lean();
  if (existing) return existing;
  const created = await createUser(ctx, input);
  if (created) return created;
  const winner = await ctx.models.User.findOne({ email }).lean();
  if (!winner) throw new Error('user vanished after a duplicate e-mail');
  return winner;
}

/** A new user with this e-mail, or null when one exists already (unique index). */
export async function createUser(ctx: IdentityContext, input: { email: string; displayName?: string }): Promise<UserDoc | null> {
  const email = normalizeEmail(input.email);
  const displayName = input.displayName?.trim() || email.split('@')[0];
  try {
    return (await ctx.models.User.create({ _id: newId(), email, displayName, createdAt: new Date() })).toObject();
  } catch (error) {
    if (isDuplicateKeyError(error)) return null;
    throw error;
  }
}

export async function getUsers(ctx: IdentityContext, ids: string[]): Promise<UserDoc[]> {
  if (ids.length === 0) return [];
  return findByIds(ctx.models.User, ids);
}

/**
 * A user as the caller may see them (GET /v1/users/{id}): themselves, or someone sharing an
 * active organization with them (only the token's organization when it is scoped); 404 otherwise.
 * The e-mail is directory data: shown only when the caller may list the members of a shared
 * organization (a role there), not to guests, who get the public profile (GitBook's User
 * has `email` optional; the operation serves "publicly available information").
 */
export async function getVisibleUser(ctx: IdentityContext, callerId: string, userId: string): Promise<{ user: UserDoc; email: boolean }> {
  const user = await ctx.models.User.findById(userId).lean();
  if (!user) throw httpError.notFound('User');
  // An installation's user has no e-mail, and belongs (without membership) to its installation's organization.
  const installation = user.kind === 'installation';
  if (userId === callerId) return { user, email: !installation };
  const scope = tokenScope();
  const theirs = installation
    ? [await installationOrganizationOf(ctx, userId)].flatMap((organizationId) =>
        organizationId && (!scope || scope === organizationId) ? [{ organizationId }] : [],
      )
    : await ctx.models.Membership.find({ userId, disabled: false, ...(scope ? { organizationId: scope } : {}) }, { organizationId: 1 }).lean();
  const shared = theirs.length
    ? await ctx.models.Membership.find(
        { userId: callerId, disabled: false, organizationId: { $in: theirs.map((m) => m.organizationId) } },
        { role: 1, disabled: 1 },
      ).lean()
    : [];
  if (shared.length === 0) throw httpError.notFound('User');
  return { user, email: !installation && shared.some((membership) => organizationPermissions(membership).listMembers) };
}

/** The caller's own user (GET /v1/user); 404 when it is gone. */
export async function getOwnUser(ctx: IdentityContext, userId: string): Promise<UserDoc> {
  const user = await ctx.models.User.findById(userId).lean<UserDoc>();
  if (!user) throw httpError.notFound('User');
  return user;
}
