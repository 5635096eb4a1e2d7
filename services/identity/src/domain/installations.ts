import { isDuplicateKeyError, newId } from '@quire/runtime';
import type { InstallationIdentityDoc } from '../db/models';
import type { IdentityContext } from './context';
import { membersChanged } from './invalidations';
import { forgetToken, issueToken, revokeToken } from './tokens';

/*
 * Installation tokens (GitBook's `environment.apiTokens.installation`): what an integration's
 * script calls the API back with, as its installation.
 *
 * The installation acts as a user of its own (kind 'installation', named after the integration,
 * without e-mail), so that what it writes has an author. That user has no membership: member
 * lists, counts and seats do not change. Instead, membership lookups (gRPC GetMembership and
 * BatchGetMemberships, which every service asks) answer for it in the installation's
 * organization only, with a role its scopes give it and never admin. Its tokens are scoped to
 * that organization like SSO tokens (a non-member everywhere else), expire after an hour, are
 * stored hashed like every token, and are revoked for good when the installation is removed.
 */

/** How long an installation token is valid; the integrations service asks for a new one before. */
export const INSTALLATION_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export type InstallationRole = InstallationIdentityDoc['role'];

/** The role an integration's scopes give its installation: any write scope (or git sync) edits, the rest reads. */
export function installationRole(scopes: readonly string[]): InstallationRole {
  return scopes.some((scope) => scope.endsWith(':write') || scope === 'space:git:sync') ? 'edit' : 'read';
}

/** Refused: the installation's tokens were revoked (uninstalled, the integration deleted). */
export class InstallationRevokedError extends Error {}
/** Refused: the installation is known in another organization. */
export class InstallationMismatchError extends Error {}

export interface InstallationTokenRequest {
  installationId: string;
  organizationId: string;
  integrationName: string;
  integrationTitle: string;
  scopes: readonly string[];
}

/** The stored e-mail of an installation's user: unique, and no address (no `@`), so no e-mail lookup or sign-in ever finds it. */
const placeholderEmail = (userId: string) => `installation:${userId}`;

/**
 * The installation's identity, made on its first token (its user first, so that it never names
 * a missing user; of two racing first issues, the unique id keeps one and the other's user goes).
 */
async function installationIdentity(ctx: IdentityContext, input: InstallationTokenRequest): Promise<InstallationIdentityDoc> {
  const existing = await ctx.models.InstallationIdentity.findById(input.installationId).lean();
  if (existing) return existing;
  const now = new Date();
  const userId = newId();
  const displayName = input.integrationTitle || input.integrationName;
  await ctx.models.User.create({ _id: userId, displayName, email: placeholderEmail(userId), kind: 'installation', createdAt: now });
  const doc: InstallationIdentityDoc = {
    _id: input.installationId,
    userId,
    organizationId: input.organizationId,
    integrationName: input.integrationName,
    scopes: [...input.scopes],
    role: installationRole(input.scopes),
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  };
  try {
    await ctx.models.InstallationIdentity.create(doc);
    return doc;
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    await ctx.models.User.deleteOne({ _id: userId });
    const winner = await ctx.models.InstallationIdentity.findById(input.installationId).lean();
    if (!winner) throw error;
    return winner;
  }
}

/**
 * A new token of the installation, valid for INSTALLATION_TOKEN_LIFETIME_MS in its organization.
 * Keeps the installation's role (from the scopes given) and its user's name (the title) current.
 */
export async function issueInstallationToken(
  ctx: IdentityContext,
  input: InstallationTokenRequest,
): Promise<{ token: string; expiresAt: Date; userId: string }> {
  let identity = await installationIdentity(ctx, input);
  if (identity.revokedAt || !identity.userId) throw new InstallationRevokedError('the installation was removed: its tokens are revoked');
  if (identity.organizationId !== input.organizationId) throw new InstallationMismatchError('the installation belongs to another organization');
  const userId = identity.userId;
  const role = installationRole(input.scopes);
  if (role !== identity.role || identity.integrationName !== input.integrationName || identity.scopes.join(' ') !== input.scopes.join(' ')) {
    const $set = { role, integrationName: input.integrationName, scopes: [...input.scopes], updatedAt: new Date() };
    identity = (await ctx.models.InstallationIdentity.findOneAndUpdate({ _id: identity._id }, { $set }, { returnDocument: 'after' }).lean()) ?? identity;
    // The services' membership caches hold the previous role, the gateway's the previous scopes.
    await membersChanged(ctx, identity.organizationId, [userId]);
    const live = await ctx.models.ApiToken.find({ userId, revokedAt: null }, { hash: 1 }).lean();
    for (const token of live) await forgetToken(ctx, token.hash);
  }
  const displayName = input.integrationTitle || input.integrationName;
  await ctx.models.User.updateOne({ _id: userId, displayName: { $ne: displayName } }, { $set: { displayName } });

  const expiresAt = new Date(Date.now() + INSTALLATION_TOKEN_LIFETIME_MS);
  const issued = await issueToken(ctx, userId, `installation:${identity._id}`, identity.organizationId, expiresAt);
  // A revocation that ran meanwhile may not have seen this token: it is revoked here (the
  // revocation marks the installation before it lists its tokens, so one of the two sees the other).
  const after = await ctx.models.InstallationIdentity.findById(identity._id, { revokedAt: 1 }).lean();
  if (!after || after.revokedAt) {
    await revokeToken(ctx, issued.id);
    throw new InstallationRevokedError('the installation was removed: its tokens are revoked');
  }
  // Expired tokens serve nothing any more (no TTL index: each installation clears its own).
  await ctx.models.ApiToken.deleteMany({ userId, expiresAt: { $lte: new Date() } });
  return { token: issued.token, expiresAt, userId };
}

/**
 * Revokes every token of these installations and refuses them any new one: the installation is
 * marked first (a mark is kept also for an installation that never had a token, so that an issue
 * racing its removal cannot make one), then its live tokens are revoked and dropped from the
 * gateway's caches. Idempotent; returns how many live tokens were revoked.
 */
export async function revokeInstallationTokens(ctx: IdentityContext, installationIds: readonly string[]): Promise<number> {
  let revoked = 0;
  for (const installationId of new Set(installationIds)) {
    const identity = await markRevoked(ctx, installationId);
    if (!identity?.userId) continue;
    const tokens = await ctx.models.ApiToken.find({ userId: identity.userId, revokedAt: null }, { _id: 1 }).lean();
    for (const token of tokens) if (await revokeToken(ctx, token._id)) revoked += 1;
    await membersChanged(ctx, identity.organizationId, [identity.userId]);
  }
  return revoked;
}

async function markRevoked(ctx: IdentityContext, installationId: string): Promise<InstallationIdentityDoc | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = new Date();
    const marked = await ctx.models.InstallationIdentity.findOneAndUpdate(
      { _id: installationId, revokedAt: null },
      { $set: { revokedAt: now, updatedAt: now } },
      { returnDocument: 'after' },
    ).lean();
    if (marked) return marked;
    const existing = await ctx.models.InstallationIdentity.findById(installationId).lean();
    if (existing) return existing;
    try {
      await ctx.models.InstallationIdentity.create({
        _id: installationId,
        userId: null,
        organizationId: '',
        integrationName: '',
        scopes: [],
        role: 'read',
        createdAt: now,
        updatedAt: now,
        revokedAt: now,
      });
      return null;
    } catch (error) {
      // A first issue made it meanwhile: mark that one.
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
  throw new Error(`could not mark installation ${installationId} revoked`);
}

/**
 * The membership an installation's user stands for: in its installation's organization, among
 * `organizationIds`, while the installation is there. Null for any other user.
 */
export async function installationStanding(
  ctx: IdentityContext,
  userId: string,
  organizationIds: readonly string[],
): Promise<{ organizationId: string; role: InstallationRole; since: Date } | null> {
  if (!userId || organizationIds.length === 0) return null;
  const identity = await ctx.models.InstallationIdentity.findOne({ userId, revokedAt: null }).lean();
  if (!identity || !organizationIds.includes(identity.organizationId)) return null;
  return { organizationId: identity.organizationId, role: identity.role, since: identity.createdAt };
}

/** The organization whose installation this user is, while it is installed there (null for any other user). */
export async function installationOrganizationOf(ctx: IdentityContext, userId: string): Promise<string | null> {
  const identity = await ctx.models.InstallationIdentity.findOne({ userId, revokedAt: null }, { organizationId: 1 }).lean();
  return identity?.organizationId ?? null;
}
