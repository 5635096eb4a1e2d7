import type { Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import { HttpError } from '@quire/http';
import type { SiteDoc } from '../db/models';
import type { VisitorClaims } from '../domain/conditions';
import type { PublishingContext } from '../domain/context';
import { visitorToken } from '../domain/visitor-auth';
import type { SiteAddress } from './address';

/*
 * Who may see a published site (spec: visibility):
 *   public, unlisted — anyone;
 *   share-link       — only with an active share link's key, given once as ?share=<key> and then
 *                      kept in a cookie; an unknown or revoked key is a 404, as if the site did not exist;
 *   visitor-auth     — a JWT signed (HS256) with the site's private key, given once as
 *                      ?jwt_token=<token> (GitBook's parameter) and then kept in a cookie until it
 *                      expires, or the same cookie made by a sign-in with the site's OpenID Connect
 *                      provider (oidc.ts); without one the visitor is sent to that sign-in when the
 *                      site has a provider, else to the site's fallback URL, if set.
 * A visitor token's claims drive adaptive content on every site.
 */

export const SHARE_COOKIE = 'quire_share';
export const VISITOR_COOKIE = 'quire_visitor';

/** A visitor let in, with the claims of their token (none without one). */
export interface Audience {
  claims: VisitorClaims;
}

/** The answer is not the page: a redirect or a refusal, already decided. */
export class AudienceDecision {
  constructor(
    readonly status: 302 | 401 | 404,
    readonly location?: string,
    readonly clearCookie?: string,
  ) {}
}

function cookieOptions(address: SiteAddress, expires?: Date, path = address.basePath) {
  return { httpOnly: true, sameSite: 'lax' as const, path, secure: address.base.startsWith('https:'), ...(expires ? { expires } : {}) };
}

/** Keeps the visitor's token (their claims) in the site's cookie until `expires` (the browser's session without): a token in the address, a sign-in. */
export function setVisitorSession(res: Response, address: SiteAddress, token: string, expires?: Date): void {
  res.cookie(VISITOR_COOKIE, token, cookieOptions(address, expires));
}

/** A cookie for the addresses `below` the site's root (ending with '/'), HttpOnly like the site's own, for `maxAgeMs`. */
export function setSiteCookie(res: Response, address: SiteAddress, name: string, value: string, below: string, maxAgeMs: number): void {
  res.cookie(name, value, { ...cookieOptions(address, undefined, `${address.basePath}${below}`), maxAge: maxAgeMs });
}

/** Clears a cookie of the site (`below`: the addresses it was set for below the site's root, all of them by default). */
export function clearSiteCookie(res: Response, address: SiteAddress, name: string, below = ''): void {
  res.clearCookie(name, cookieOptions(address, undefined, `${address.basePath}${below}`));
}

/** Where an OpenID Connect sign-in starts, below a site's root (oidc.ts). */
export const OIDC_LOGIN_PATH = '~/auth/oidc/login';

/** The address asked for, as the visitor sees it (below the site's root), without the query parameters that carry a secret. */
function addressOnSite(address: SiteAddress, req: Request): string {
  const url = new URL(withoutSecrets(req), 'http://site.invalid');
  const trailing = url.pathname.endsWith('/') && address.segments.length ? '/' : '';
  return `${address.basePath}${address.segments.map(encodeURIComponent).join('/')}${trailing}${url.search}`;
}

/** The address asked for, without the query parameters that carry a secret. */
export function withoutSecrets(req: Request): string {
  const url = new URL(req.originalUrl, 'http://site.invalid');
  url.searchParams.delete('share');
  url.searchParams.delete('jwt_token');
  return `${url.pathname}${url.search}`;
}

async function activeShareLink(ctx: PublishingContext, site: SiteDoc, key: string): Promise<boolean> {
  // A cookie's value is decoded (%00) past the routes' input checks, and the datastore refuses a NUL: no such key.
  if (key.includes('\0')) return false;
  const link = await ctx.models.ShareLink.findOne({ siteId: site._id, key }, { active: 1 }).lean();
  return Boolean(link?.active);
}

function claimsOf(site: SiteDoc, token: string): { claims: VisitorClaims; expires?: Date } | undefined {
  try {
    return visitorToken(site, token);
  } catch (error) {
    if (error instanceof HttpError) return undefined;
    throw error;
  }
}

/**
 * Lets the visitor in, or decides what they get instead. A secret given in the address is
 * moved into a cookie and the visitor is sent to the same address without it (it stays out of
 * history, logs and referrers), unless `inAddress` says its client keeps the address as it is
 * (an agent, which neither follows a redirect nor keeps a cookie): then it admits this request.
 */
export async function admit(
  ctx: PublishingContext,
  address: SiteAddress,
  req: Request,
  res: Response,
  inAddress: 'to-cookie' | 'per-request' = 'to-cookie',
): Promise<Audience | AudienceDecision> {
  const { site } = address;
  const cookies = parseCookies(req.headers.cookie ?? '');
  const query = req.query as Record<string, unknown>;
  const givenShare = typeof query.share === 'string' ? query.share : undefined;
  const givenToken = typeof query.jwt_token === 'string' ? query.jwt_token : undefined;

  if (site.visibility === 'share-link') {
    if (givenShare !== undefined) {
      if (!(await activeShareLink(ctx, site, givenShare))) return new AudienceDecision(404);
      if (inAddress === 'to-cookie') {
        res.cookie(SHARE_COOKIE, givenShare, cookieOptions(address));
        return new AudienceDecision(302, withoutSecrets(req));
      }
    } else {
      const kept = cookies[SHARE_COOKIE];
      if (!kept || !(await activeShareLink(ctx, site, kept))) return new AudienceDecision(404, undefined, kept ? SHARE_COOKIE : undefined);
    }
  }

  if (givenToken !== undefined) {
    const read = claimsOf(site, givenToken);
    if (!read) return new AudienceDecision(401);
    if (inAddress === 'per-request') return { claims: read.claims };
    setVisitorSession(res, address, givenToken, read.expires);
    return new AudienceDecision(302, withoutSecrets(req));
  }
  const kept = cookies[VISITOR_COOKIE];
  const read = kept ? claimsOf(site, kept) : undefined;
  if (site.visibility === 'visitor-auth' && !read) {
    if (site.visitorAuth.oidc && inAddress === 'to-cookie') {
      // Signed in again at the provider (a session there makes it a round of redirects), then back here.
      const login = `${address.basePath}${OIDC_LOGIN_PATH}?location=${encodeURIComponent(addressOnSite(address, req))}`;
      return new AudienceDecision(302, login, kept ? VISITOR_COOKIE : undefined);
    }
    const fallback = site.visitorAuth.fallbackURL;
    if (!kept && fallback && inAddress === 'to-cookie') {
      const target = new URL(fallback);
      target.searchParams.set('location', withoutSecrets(req));
      return new AudienceDecision(302, target.toString());
    }
    return new AudienceDecision(401, undefined, kept ? VISITOR_COOKIE : undefined);
  }
  return { claims: read?.claims ?? {} };
}
