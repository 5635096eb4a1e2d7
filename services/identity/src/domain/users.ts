import { newId } from '@quire/runtime';
import type { UserDoc } from '../db/models';
import type { IdentityContext } from './context';

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
    if ((error as { code?: number }).code === 11000) return null;
    throw error;
  }
}

export async function getUsers(ctx: IdentityContext, ids: string[]): Promise<UserDoc[]> {
  if (ids.length === 0) return [];
  return ctx.models.User.find({ _id: { $in: [...new Set(ids)] } }).lean();
}
