import jwt from 'jsonwebtoken';
import { httpError, httpUrlSchema } from '@quire/http';
import { newSecret } from '@quire/runtime';
import type { PublishingConfig } from '../config';
import type { SiteDoc } from '../db/models';
import type { VisitorClaims } from './conditions';
import type { PublishingContext } from './context';
import { oidcSettingsOf, presentOidc, type OidcInput } from './oidc';
import { siteAddress } from './urls';

/** Claims that describe the token rather than the visitor. */
const REGISTERED = ['iat', 'exp', 'nbf', 'iss', 'aud', 'sub', 'jti'];
/** Claims of an OpenID Connect ID token that describe the sign-in rather than the visitor. */
const ID_TOKEN_ONLY = ['nonce', 'at_hash', 'c_hash', 's_hash', 'azp', 'auth_time', 'acr', 'amr', 'sid'];
/** Longest a visitor stays signed in after an OpenID Connect sign-in (less when the ID token expires sooner). */
const SESSION_MAX_S = 12 * 60 * 60;

/**
 * The visitor's claims for a read of the published structure. A `visitor-auth` site needs
 * a token signed (HS256) with its private key; other sites take an optional one (adaptive
 * content). A missing, forged or expired token is a 403 naming visitorAuthToken.
 */
export function visitorClaims(site: SiteDoc, token: string | undefined): VisitorClaims {
  if (!token) {
    if (site.visibility === 'visitor-auth') throw httpError.forbidden('visitorAuthToken: this site requires a visitor token signed with its private key');
    return {};
  }
  return visitorToken(site, token).claims;
}

/** A visitor token signed with the site's key: its claims, and when it expires if it says. A forged or expired one is a 403. */
export function visitorToken(site: SiteDoc, token: string): { claims: VisitorClaims; expires?: Date } {
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, site.visitorAuth.privateKey, { algorithms: ['HS256'] });
  } catch (error) {
    throw httpError.forbidden(`visitorAuthToken: not a valid visitor token for this site (${(error as Error).message})`);
  }
  if (typeof payload !== 'object' || payload === null) throw httpError.forbidden('visitorAuthToken: the token carries no claims');
  const claims: VisitorClaims = {};
  for (const [key, value] of Object.entries(payload)) if (!REGISTERED.includes(key)) claims[key] = value;
  return { claims, ...(typeof payload.exp === 'number' ? { expires: new Date(payload.exp * 1000) } : {}) };
}

/**
 * A visitor token signed with the site's key for a visitor signed in with the site's OpenID
 * Connect provider: the ID token's claims about the visitor, valid until the ID token expires
 * (at most SESSION_MAX_S). It is what a `?jwt_token=` becomes, so both sign-ins give one session.
 */
export function sessionToken(site: SiteDoc, idClaims: Record<string, unknown>): { token: string; expires: Date } {
  const now = Math.floor(Date.now() / 1000);
  const exp = Math.min(typeof idClaims.exp === 'number' ? idClaims.exp : now + SESSION_MAX_S, now + SESSION_MAX_S);
  const claims: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(idClaims)) if (!REGISTERED.includes(key) && !ID_TOKEN_ONLY.includes(key)) claims[key] = value;
  const token = jwt.sign({ ...claims, iat: now, exp, ...(typeof idClaims.sub === 'string' ? { sub: idClaims.sub } : {}) }, site.visitorAuth.privateKey, {
    algorithm: 'HS256',
  });
  return { token, expires: new Date(exp * 1000) };
}

/** A stored address, if visitors may be sent to it (one saved before addresses were checked may not). */
const safeAddress = (url: string | null | undefined) => (url && httpUrlSchema.safeParse(url).success ? url : undefined);

/** Where a visitor who signed out goes when the site's sign-in provider has no end-session address. */
export const logoutAddress = (site: SiteDoc): string | undefined => safeAddress(site.visitorAuth.logoutURL);

/** SitePublishingAuth (OpenAPI): what admins need to sign visitor tokens, and the OpenID Connect provider (never its secret). */
export function presentPublishingAuth(site: SiteDoc, config: PublishingConfig) {
  const fallbackURL = safeAddress(site.visitorAuth.fallbackURL);
  const logoutURL = safeAddress(site.visitorAuth.logoutURL);
  const oidc = presentOidc(site, siteAddress(site, config));
  return {
    object: 'publishing-auth' as const,
    backend: site.visitorAuth.backend,
    privateKey: site.visitorAuth.privateKey,
    ...(fallbackURL ? { fallbackURL } : {}),
    ...(logoutURL ? { logoutURL } : {}),
    ...(oidc ? { oidc } : {}),
  };
}

export async function updatePublishingAuth(
  ctx: PublishingContext,
  site: SiteDoc,
  input: { fallbackURL?: string | null; logoutURL?: string | null; oidc?: OidcInput | null },
) {
  const set: Record<string, unknown> = {};
  if (input.fallbackURL !== undefined) set['visitorAuth.fallbackURL'] = input.fallbackURL;
  if (input.logoutURL !== undefined) set['visitorAuth.logoutURL'] = input.logoutURL;
  if (input.oidc !== undefined) set['visitorAuth.oidc'] = oidcSettingsOf(ctx.config, site, input.oidc);
  return saveAuth(ctx, site, set);
}

/** A new private key: every token signed with the old one stops working at once. */
export async function regeneratePublishingAuth(ctx: PublishingContext, site: SiteDoc) {
  return saveAuth(ctx, site, { 'visitorAuth.privateKey': newSecret(32) });
}

async function saveAuth(ctx: PublishingContext, site: SiteDoc, set: Record<string, unknown>) {
  const updated = Object.keys(set).length ? await ctx.models.Site.findOneAndUpdate({ _id: site._id }, { $set: set }, { returnDocument: 'after' }).lean() : site;
  if (!updated) throw httpError.notFound('Site');
  return updated;
}
