import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { httpError } from '@quire/http';
import { newId, retryOnDuplicateKey } from '@quire/runtime';
import type { SamlProviderDoc } from '../db/directory';
import type { UserDoc } from '../db/models';
import type { IdentityContext } from './context';
import { changingMembers } from './invalidations';
import { memberSearchFields } from './organizations';
import { providerStatus, serviceEndpoints } from './saml';
import { issueToken } from './tokens';
import { createUser, normalizeEmail } from './users';

/** How long an identity provider has to answer one of our AuthnRequests. */
const REQUEST_TTL_SECONDS = 600;

/**
 * The ids of AuthnRequests we sent, in Redis so any identity replica can accept the answer.
 * Responses must answer one of them (validateInResponseTo 'always'): unsolicited responses are
 * refused and, since a request id is consumed by its first answer, a response cannot be replayed.
 */
function requestCache(ctx: IdentityContext, providerId: string): CacheProvider {
  const key = (id: string) => `identity:saml-request:${providerId}:${id}`;
  return {
    async saveAsync(id, value) {
      const created = await ctx.redis.set(key(id), value, 'EX', REQUEST_TTL_SECONDS, 'NX');
      return created === 'OK' ? { value, createdAt: Date.now() } : null;
    },
    async getAsync(id) {
      return ctx.redis.get(key(id));
    },
    async removeAsync(id) {
      if (!id) return null;
      const value = await ctx.redis.get(key(id));
      await ctx.redis.del(key(id));
      return value;
    },
  };
}

async function activeProvider(ctx: IdentityContext, providerId: string): Promise<SamlProviderDoc> {
  const provider = await ctx.models.SamlProvider.findById(providerId).lean();
  if (!provider || providerStatus(provider) !== 'active') throw httpError.notFound('SAML provider');
  return provider;
}

function samlOf(ctx: IdentityContext, provider: SamlProviderDoc): SAML {
  const service = serviceEndpoints(ctx.config.PUBLIC_BASE_URL, provider._id);
  return new SAML({
    entryPoint: provider.ssoURL,
    issuer: service.entityID,
    callbackUrl: service.acsURL,
    audience: service.entityID,
    idpCert: provider.certificate!,
    idpIssuer: provider.entityID,
    // Many identity providers sign only the assertion; the assertion is what we trust.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_SECONDS * 1000,
    cacheProvider: requestCache(ctx, provider._id),
    acceptedClockSkewMs: 60_000,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    disableRequestedAuthnContext: true,
  });
}

/** The identity provider's sign-in address carrying a new AuthnRequest (HTTP-Redirect binding). */
export async function startLogin(ctx: IdentityContext, providerId: string): Promise<string> {
  const provider = await activeProvider(ctx, providerId);
  return samlOf(ctx, provider).getAuthorizeUrlAsync('', undefined, {});
}

/** Our service-provider metadata, for administrators to load into their identity provider. */
export async function serviceMetadata(ctx: IdentityContext, providerId: string): Promise<string> {
  const provider = await activeProvider(ctx, providerId);
  return samlOf(ctx, provider).generateServiceProviderMetadata(null, null);
}

const EMAIL_ATTRIBUTES = ['email', 'mail', 'urn:oid:0.9.2342.19200300.100.1.3', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'];
const NAME_ATTRIBUTES = ['displayName', 'name', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function firstString(profile: Profile, names: string[]): string | undefined {
  for (const name of names) {
    const value = profile[name];
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string' && text.trim()) return text.trim();
  }
  return undefined;
}

/**
 * Accepts a signed SAMLResponse: the user (created by e-mail, or an existing member of the
 * provider's organization) becomes an SSO member of it — new members with its default role —
 * joins its default team, and gets an API token. Nothing is written unless the response is
 * valid and the account may be signed in.
 */
export async function completeLogin(ctx: IdentityContext, providerId: string, samlResponse: string) {
  const provider = await activeProvider(ctx, providerId);
  let profile: Profile | null;
  try {
    ({ profile } = await samlOf(ctx, provider).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    throw httpError.unauthorized(`SAML response rejected: ${(error as Error).message}`);
  }
  const email = profile && (firstString(profile, EMAIL_ATTRIBUTES) ?? profile.nameID);
  if (!email || !EMAIL.test(email)) throw httpError.unauthorized('SAML response rejected: no e-mail address in the assertion');
  const organization = await ctx.models.Organization.findById(provider.organizationId).lean();
  if (!organization) throw httpError.notFound('SAML provider');

  const user = await ssoAccount(ctx, organization._id, email, firstString(profile!, NAME_ATTRIBUTES));
  const membership = await changingMembers(ctx, organization._id, [user._id], () => joinOrganization(ctx, provider, organization._id, user));
  // The identity provider vouches for this organization only (any organization's admins configure
  // theirs): the token is scoped to it and acts as a non-member of every other organization.
  const { token } = await issueToken(ctx, user._id, `sso:${provider._id}`, organization._id);
  return { token, user, organization, membership };
}

/** Makes the user an SSO member of the organization (new members with the provider's default role) in its default team. */
async function joinOrganization(ctx: IdentityContext, provider: SamlProviderDoc, organizationId: string, user: UserDoc) {
  // Upserts of unique rows: a sign-in racing another one of the same user finds the row and updates it.
  const membership = await retryOnDuplicateKey(() =>
    ctx.models.Membership.findOneAndUpdate(
      { organizationId, userId: user._id },
      {
        $set: { sso: true, ...memberSearchFields(user) },
        // Existing members keep their role: signing in must never demote an admin.
        $setOnInsert: { _id: newId(), joinedAt: new Date(), disabled: false, role: provider.defaultRole },
      },
      { upsert: true, returnDocument: 'after' },
    ).lean(),
  );
  if (!membership) throw httpError.unavailable('Could not record the membership, try again');
  if (provider.defaultTeamId && (await ctx.models.Team.exists({ _id: provider.defaultTeamId, organizationId }))) {
    await retryOnDuplicateKey(() =>
      ctx.models.TeamMembership.updateOne(
        { teamId: provider.defaultTeamId, userId: user._id },
        { $setOnInsert: { _id: newId(), organizationId, role: 'member', createdAt: new Date() } },
        { upsert: true },
      ),
    );
  }
  return membership;
}

/**
 * The account an assertion signs in: a new user, or an existing one only when they already
 * belong to the provider's organization. An identity provider (which any organization's admin
 * configures) must never take over an account that is not its organization's: even though the
 * token is scoped to the organization, it would speak for the whole account (its profile, its
 * membership there).
 */
async function ssoAccount(ctx: IdentityContext, organizationId: string, email: string, displayName: string | undefined): Promise<UserDoc> {
  const existing = await ctx.models.User.findOne({ email: normalizeEmail(email) }).lean();
  const user = existing ?? (await createUser(ctx, { email, displayName }));
  if (!user) throw httpError.conflict('The account is being created, try again');
  if (existing) {
    const membership = await ctx.models.Membership.findOne({ organizationId, userId: existing._id }, { disabled: 1 }).lean();
    if (!membership)
      throw httpError.forbidden('An account with this e-mail already exists: an admin must add it to the organization before it signs in with SSO');
    if (membership.disabled) throw httpError.forbidden('Your membership of this organization is disabled');
  }
  return user;
}
