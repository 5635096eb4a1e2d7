import { hashSecret, newId, newSecret, tokenCacheKey } from '@quire/runtime';
import type { UserDoc } from '../db/models';
import type { IdentityContext } from './context';
import { tokenChanged } from './invalidations';

const TOKEN_PREFIX = 'qr_';

/**
 * Issues a new API token; the secret is returned once and only its hash is stored. With
 * `organizationId` the token is scoped: it acts as a non-member of every other organization.
 * With `expiresAt` it is valid until then only.
 */
export async function issueToken(
  ctx: IdentityContext,
  userId: string,
  label = '',
  organizationId: string | null = null,
  expiresAt: Date | null = null,
): Promise<{ id: string; token: string }> {
  const token = `${TOKEN_PREFIX}${newSecret(32)}`;
  const id = newId();
  await ctx.models.ApiToken.create({ _id: id, userId, hash: hashSecret(token), label, organizationId, createdAt: new Date(), revokedAt: null, expiresAt });
  return { id, token };
}

export interface ResolvedToken {
  user: UserDoc;
  tokenId: string;
  organizationId: string | null;
  expiresAt: Date | null;
  /** For an installation's token (installations.ts): the installation and its integration's scopes. */
  installation: { id: string; scopes: string[] } | null;
}

/**
 * The live token's owner, scope and expiry, or null when the token is unknown, revoked or
 * expired (or is an installation's that was removed).
 */
export async function resolveToken(ctx: IdentityContext, token: string): Promise<ResolvedToken | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const record = await ctx.models.ApiToken.findOne({ hash: hashSecret(token), revokedAt: null }).lean();
  if (!record || (record.expiresAt && record.expiresAt.getTime() <= Date.now())) return null;
  const user = await ctx.models.User.findById(record.userId).lean();
  if (!user) return null;
  let installation: ResolvedToken['installation'] = null;
  if (user.kind === 'installation') {
    const identity = await ctx.models.InstallationIdentity.findOne({ userId: user._id, revokedAt: null }, { scopes: 1 }).lean();
    if (!identity) return null;
    installation = { id: identity._id, scopes: identity.scopes };
  }
  return { user, tokenId: record._id, organizationId: record.organizationId ?? null, expiresAt: record.expiresAt ?? null, installation };
}

/**
 * Revokes a token and drops it from the gateway's caches (Redis, and each replica's memory) at
 * once. Idempotent; revoking again repeats the drop, in case the first one failed.
 */
export async function revokeToken(ctx: IdentityContext, tokenId: string): Promise<boolean> {
  const record = await ctx.models.ApiToken.findOneAndUpdate(
    { _id: tokenId, revokedAt: null },
    { $set: { revokedAt: new Date() } },
    { returnDocument: 'after' },
  ).lean();
  const revoked = record ?? (await ctx.models.ApiToken.findById(tokenId, { hash: 1 }).lean());
  if (revoked) await forgetToken(ctx, revoked.hash);
  return !!record;
}

/** Drops a token from the gateway's caches: the Redis entry first, so no replica reloads it from there. */
export async function forgetToken(ctx: IdentityContext, hash: string): Promise<void> {
  await ctx.redis.del(tokenCacheKey(hash));
  await tokenChanged(ctx, hash);
}

/** Revokes the token with this secret (operators hold the secret, not the id). */
export async function revokeTokenBySecret(ctx: IdentityContext, token: string): Promise<boolean> {
  const record = await ctx.models.ApiToken.findOne({ hash: hashSecret(token) }, { _id: 1 }).lean();
  return record ? revokeToken(ctx, record._id) : false;
}

/**
 * Tokens that SSO sign-ins issued before tokens carried a scope are valid in every organization
 * of their user. Scopes each to its provider's organization (the label says `sso:<providerId>`)
 * and revokes those whose provider is gone; the gateway's cache forgets them at once. Idempotent.
 */
export async function scopeLegacySsoTokens(ctx: IdentityContext): Promise<number> {
  const legacy = await ctx.models.ApiToken.find({ label: /^sso:/, organizationId: null, revokedAt: null }, { label: 1, hash: 1 }).lean();
  if (legacy.length === 0) return 0;
  const providerIds = [...new Set(legacy.map((t) => t.label.slice('sso:'.length)))];
  const providers = await ctx.models.SamlProvider.find({ _id: { $in: providerIds } }, { organizationId: 1 }).lean();
  const organizationOf = new Map(providers.map((p) => [p._id, p.organizationId]));
  for (const token of legacy) {
    const organizationId = organizationOf.get(token.label.slice('sso:'.length));
    if (!organizationId) {
      await revokeToken(ctx, token._id);
      continue;
    }
    await ctx.models.ApiToken.updateOne({ _id: token._id, organizationId: null }, { $set: { organizationId } });
    await forgetToken(ctx, token.hash);
  }
  return legacy.length;
}
