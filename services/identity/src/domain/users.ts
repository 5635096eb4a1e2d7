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
  const displayName = input.displayName?.trim() || email.split('@')[0];
  try {
    const created = await ctx.models.User.create({ _id: newId(), email, displayName, createdAt: new Date() });
    return created.toObject();
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    const winner = await ctx.models.User.findOne({ email }).lean();
    if (!winner) throw error;
    return winner;
  }
}

export async function getUsers(ctx: IdentityContext, ids: string[]): Promise<UserDoc[]> {
  if (ids.length === 0) return [];
  return ctx.models.User.find({ _id: { $in: [...new Set(ids)] } }).lean();
}
