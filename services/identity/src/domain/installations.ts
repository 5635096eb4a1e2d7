import { HttpError } from '@quire/http';
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
 * organization only, with a role its scopes give it and never admin, and with its reach: the
 * spaces and sites its installation covers, of the kinds its scopes name (every service refuses it
 * the others as it refuses an outsider). Its tokens are scoped to that organization like SSO
 * tokens (a non-member everywhere else), expire after an hour, are stored hashed like every
 * token, and are revoked for good when the installation is removed.
 *
 * The integrations service owns what an installation may act with: the scopes its installer
 * approved (a republish asking for more waits for the installer's approval) and its space and
 * site selection. It gives them with every token it asks for and after every change
 * (UpdateInstallationAccess), versioned so that an answer overtaken by a later change never
 * undoes it; a change is in force at once for the installation's live tokens.
 */

/** How long an installation token is valid; the integrations service asks for a new one before. */
export const INSTALLATION_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export type InstallationRole = InstallationIdentityDoc['role'];

/** The role an integration's scopes give its installation: any write scope (or git sync) edits, the rest reads. */
export function installationRole(scopes: readonly string[]): InstallationRole {
  return scopes.some((scope) => scope.endsWith(':write') || scope === 'space:git:sync') ? 'edit' : 'read';
}

/** Refused (412, a gRPC FAILED_PRECONDITION): the installation's tokens were revoked (uninstalled, the integration deleted). */
export class InstallationRevokedError extends HttpError {
  constructor(message: string) {
    super(412, message);
  }
}
/** Refused (412, a gRPC FAILED_PRECONDITION): the installation is known in another organization. */
export class InstallationMismatchError extends HttpError {
  constructor(message: string) {
    super(412, message);
  }
}

/** Spaces and sites of the installation's organization: all of them, or those listed. */
export interface InstallationSelection {
  allSpaces: boolean;
  spaceIds: readonly string[];
  allSites: boolean;
  siteIds: readonly string[];
}

/** What an installation may act with, as the integrations service says (IssueInstallationToken, UpdateInstallationAccess). */
export interface InstallationAccessInput {
  installationId: string;
  organizationId: string;
  integrationName: string;
  integrationTitle: string;
  /** The scopes its installer approved that its integration still asks for. */
  scopes: readonly string[];
  /** The spaces and sites it covers; undefined: what identity holds stays (none for a new installation). */
  selection?: InstallationSelection;
  /** Increases with every change of the access: an older one than identity holds is ignored. */
  version: number;
}

/** The stored e-mail of an installation's user: unique, and no address (no `@`), so no e-mail lookup or sign-in ever finds it. */
const placeholderEmail = (userId: string) => `installation:${userId}`;

type AccessFields = Pick<InstallationIdentityDoc, 'scopes' | 'role' | 'spaceSelection' | 'spaceIds' | 'siteSelection' | 'siteIds'>;

/** The stored fields of an access; a selection not given keeps `current`'s. */
function accessFields(input: InstallationAccessInput, current?: AccessFields): AccessFields {
  const selection = input.selection;
  return {
    scopes: [...input.scopes],
    role: installationRole(input.scopes),
    spaceSelection: selection ? (selection.allSpaces ? 'all' : 'selected') : (current?.spaceSelection ?? 'selected'),
    spaceIds: selection ? [...new Set(selection.spaceIds)].sort() : (current?.spaceIds ?? []),
    siteSelection: selection ? (selection.allSites ? 'all' : 'selected') : (current?.siteSelection ?? 'selected'),
    siteIds: selection ? [...new Set(selection.siteIds)].sort() : (current?.siteIds ?? []),
  };
}

const sameAccess = (a: AccessFields, b: AccessFields) =>
  a.role === b.role &&
  a.spaceSelection === b.spaceSelection &&
  a.siteSelection === b.siteSelection &&
  a.scopes.join(' ') === b.scopes.join(' ') &&
  a.spaceIds.join(' ') === b.spaceIds.join(' ') &&
  a.siteIds.join(' ') === b.siteIds.join(' ');

/** Scopes that name spaces (their content, metadata, Git sync, page feedback), and those that name sites. */
const SPACE_SCOPE = /^(space|page):/;
const SITE_SCOPE = /^site:/;

/**
 * What an installation's user may act on in its organization (membership lookups carry it to
 * every service): the spaces and sites its installation covers, of the kinds its scopes name.
 */
export function installationReach(identity: AccessFields): InstallationSelection {
  const spaces = identity.scopes.some((scope) => SPACE_SCOPE.test(scope));
  const sites = identity.scopes.some((scope) => SITE_SCOPE.test(scope));
  return {
    allSpaces: spaces && identity.spaceSelection === 'all',
    spaceIds: spaces && identity.spaceSelection === 'selected' ? identity.spaceIds : [],
    allSites: sites && identity.siteSelection === 'all',
    siteIds: sites && identity.siteSelection === 'selected' ? identity.siteIds : [],
  };
}

/**
 * The installation's identity, made on its first token or access (its user first, so that it
 * never names a missing user; of two racing first issues, the unique id keeps one and the other's
 * user goes).
 */
async function installationIdentity(ctx: IdentityContext, input: InstallationAccessInput): Promise<InstallationIdentityDoc> {
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
    ...accessFields(input),
    accessVersion: input.version,
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

/** The live installation's identity (made when missing); refused when revoked or in another organization. */
async function liveInstallationIdentity(ctx: IdentityContext, input: InstallationAccessInput): Promise<InstallationIdentityDoc & { userId: string }> {
  const identity = await installationIdentity(ctx, input);
  if (identity.revokedAt || !identity.userId) throw new InstallationRevokedError('the installation was removed: its tokens are revoked');
  if (identity.organizationId !== input.organizationId) throw new InstallationMismatchError('the installation belongs to another organization');
  return identity as InstallationIdentityDoc & { userId: string };
}

/**
 * Stores the access given unless identity holds a newer one (a higher version), and when it
 * changes what the installation may do, makes every cache forget the old: the services' membership
 * caches (its role and reach) and the gateway's resolved tokens (its scopes). True when it changed.
 */
async function applyAccess(ctx: IdentityContext, identity: InstallationIdentityDoc & { userId: string }, input: InstallationAccessInput): Promise<boolean> {
  const next = accessFields(input, identity);
  if ((identity.accessVersion ?? 0) > input.version || (sameAccess(identity, next) && identity.accessVersion === input.version)) return false;
  // Conditional on the version (write serialization makes the check and the write one step):
  // of two updates racing, the later version stays whatever order they land in.
  const before = await ctx.models.InstallationIdentity.findOneAndUpdate(
    { _id: identity._id, revokedAt: null, accessVersion: { $not: { $gt: input.version } } },
    { $set: { ...next, accessVersion: input.version, updatedAt: new Date() } },
    { returnDocument: 'before' },
  ).lean();
  if (!before || sameAccess(before, next)) return false;
  await membersChanged(ctx, identity.organizationId, [identity.userId]);
  const live = await ctx.models.ApiToken.find({ userId: identity.userId, revokedAt: null }, { hash: 1 }).lean();
  for (const token of live) await forgetToken(ctx, token.hash);
  return true;
}

/**
 * A new token of the installation, valid for INSTALLATION_TOKEN_LIFETIME_MS in its organization.
 * Keeps the installation's access (unless identity holds a newer one) and its user's name (the
 * title) current.
 */
export async function issueInstallationToken(
  ctx: IdentityContext,
  input: InstallationAccessInput,
): Promise<{ token: string; expiresAt: Date; userId: string }> {
  const identity = await liveInstallationIdentity(ctx, input);
  const userId = identity.userId;
  await applyAccess(ctx, identity, input);
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
 * Sets what these installations may act with (approved scopes, covered spaces and sites), at once
 * for their live tokens. Revoked installations, and those of another organization than they were
 * made in, are skipped. Returns how many changed.
 */
export async function updateInstallationAccess(ctx: IdentityContext, inputs: readonly InstallationAccessInput[]): Promise<number> {
  let changed = 0;
  for (const input of inputs) {
    let identity: InstallationIdentityDoc & { userId: string };
    try {
      identity = await liveInstallationIdentity(ctx, input);
    } catch (error) {
      if (error instanceof InstallationRevokedError || error instanceof InstallationMismatchError) continue;
      throw error;
    }
    if (await applyAccess(ctx, identity, input)) changed += 1;
  }
  return changed;
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

export interface InstallationMembership {
  organizationId: string;
  role: InstallationRole;
  since: Date;
  /** The spaces and sites it may act on (installationReach). */
  reach: InstallationSelection;
}

/**
 * The membership an installation's user stands for: in its installation's organization, among
 * `organizationIds`, while the installation is there. Null for any other user.
 */
export async function installationStanding(ctx: IdentityContext, userId: string, organizationIds: readonly string[]): Promise<InstallationMembership | null> {
  if (!userId || organizationIds.length === 0) return null;
  const identity = await ctx.models.InstallationIdentity.findOne({ userId, revokedAt: null }).lean();
  if (!identity || !organizationIds.includes(identity.organizationId)) return null;
  return { organizationId: identity.organizationId, role: identity.role, since: identity.createdAt, reach: installationReach(identity) };
}

/** The organization whose installation this user is, while it is installed there (null for any other user). */
export async function installationOrganizationOf(ctx: IdentityContext, userId: string): Promise<string | null> {
  const identity = await ctx.models.InstallationIdentity.findOne({ userId, revokedAt: null }, { organizationId: 1 }).lean();
  return identity?.organizationId ?? null;
}
