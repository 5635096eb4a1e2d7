import jwt from 'jsonwebtoken';
import { httpError, httpUrlSchema } from '@quire/http';
import { newSecret } from '@quire/runtime';
import type { SiteDoc } from '../db/models';
import type { VisitorClaims } from './conditions';
import type { PublishingContext } from './context';

/** Claims that describe the token rather than the visitor. */
const REGISTERED = ['iat', 'exp', 'nbf', 'iss', 'aud', 'sub', 'jti'];

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

/** A stored address, if visitors may be sent to it (one saved before addresses were checked may not). */
const safeAddress = (url: string | null | undefined) => (url && httpUrlSchema.safeParse(url).success ? url : undefined);

/** SitePublishingAuth (OpenAPI): what admins need to sign visitor tokens. */
export function presentPublishingAuth(site: SiteDoc) {
  const fallbackURL = safeAddress(site.visitorAuth.fallbackURL);
  const logoutURL = safeAddress(site.visitorAuth.logoutURL);
  return {
    object: 'publishing-auth' as const,
    backend: site.visitorAuth.backend,
    privateKey: site.visitorAuth.privateKey,
    ...(fallbackURL ? { fallbackURL } : {}),
    ...(logoutURL ? { logoutURL } : {}),
  };
}

export async function updatePublishingAuth(ctx: PublishingContext, site: SiteDoc, input: { fallbackURL?: string | null; logoutURL?: string | null }) {
  const set: Record<string, unknown> = {};
  if (input.fallbackURL !== undefined) set['visitorAuth.fallbackURL'] = input.fallbackURL;
  if (input.logoutURL !== undefined) set['visitorAuth.logoutURL'] = input.logoutURL;
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
