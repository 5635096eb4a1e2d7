import { hashSecret, newId, newSecret, tokenCacheKey } from '@quire/runtime';
import type { UserDoc } from '../db/models';
import type { IdentityContext } from './context';

const TOKEN_PREFIX = 'qr_';

/** Issues a new API token; the secret is returned once and only its hash is stored. */
export async function issueToken(ctx: IdentityContext, userId: string, label = ''): Promise<{ id: string; token: string }> {
  const token = `${TOKEN_PREFIX}${newSecret(32)}`;
  const id = newId();
  await ctx.models.ApiToken.create({ _id: id, userId, hash: hashSecret(token), label, createdAt: new Date(), revokedAt: null });
  return { id, token };
}

/** The live token's owner, or null when the token is unknown or revoked. */
export async function resolveToken(ctx: IdentityContext, token: string): Promise<{ user: UserDoc; tokenId: string } | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const record = await ctx.models.ApiToken.findOne({ hash: hashSecret(token), revokedAt: null }).lean();
  if (!record) return null;
  const user = await ctx.models.User.findById(record.userId).lean();
  return user ? { user, tokenId: record._id } : null;
}

/** Revokes a token and drops it from the gateway's cache at once. Idempotent. */
export async function revokeToken(ctx: IdentityContext, tokenId: string): Promise<boolean> {
  const record = await ctx.models.ApiToken.findOneAndUpdate(
    { _id: tokenId, revokedAt: null },
    { $set: { revokedAt: new Date() } },
    { returnDocument: 'after' },
  ).lean();
  if (!record) return false;
  await ctx.redis.del(tokenCacheKey(record.hash));
  return true;
}

/** Revokes the token with this secret (operators hold the secret, not the id). */
export async function revokeTokenBySecret(ctx: IdentityContext, token: string): Promise<boolean> {
  const record = await ctx.models.ApiToken.findOne({ hash: hashSecret(token) }, { _id: 1 }).lean();
  return record ? revokeToken(ctx, record._id) : false;
}
