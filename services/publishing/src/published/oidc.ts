import type { Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import type { PublishingContext } from '../domain/context';
import { beginSignIn, CALLBACK_PATH, endSessionUrl, finishSignIn, OidcSignInError, SIGN_IN_TTL_S } from '../domain/oidc';
import { logoutAddress, sessionToken } from '../domain/visitor-auth';
import type { SiteAddress } from './address';
import { notFound, sendText } from './answers';
import { clearSiteCookie, OIDC_LOGIN_PATH, setSiteCookie, setVisitorSession, VISITOR_COOKIE } from './audience';
import { messageHtml } from './html';
import { bareFrame } from './pages';
import type { SitePath } from './paths';

/*
 * The addresses of a visitor's sign-in with the site's OpenID Connect provider (domain/oidc.ts)
 * and of signing out, as paths of the site (paths.ts):
 *   ~/auth/oidc/login?location=<address of this site>  — off to the provider (a sealed cookie
 *                                                        keeps the PKCE verifier, state and nonce);
 *   ~/auth/oidc/callback                               — back from it: the ID token's claims become
 *                                                        the visitor's session (audience.ts's cookie),
 *                                                        then the visitor goes where they were going;
 *   ~/auth/logout                                      — the session ends here, then at the provider
 *                                                        (its end-session endpoint), or at the site's
 *                                                        logout URL, or back at the site's root.
 * They answer any visitor of a published site (there is no audience to let in yet), and 404 on
 * a site with no provider (logout excepted: it ends a session of either sign-in).
 */

/** The sign-in cookie: sealed, for the sign-in addresses only, for as long as a sign-in may take. */
const SIGN_IN_COOKIE = 'quire_oidc';
const SIGN_IN_BELOW = '~/auth/oidc/';
/** Longest session token kept in a cookie (browsers keep 4096 bytes of name, value and attributes). */
const MAX_SESSION_BYTES = 3800;

interface OnSite {
  ctx: PublishingContext;
  req: Request;
  res: Response;
  address: SiteAddress;
}

const only =
  (...expected: string[]) =>
  (segments: string[]) =>
    segments.length === expected.length && expected.every((segment, i) => segments[i] === segment);

function redirect(res: Response, location: string): Promise<void> {
  res.status(302).set({ location, 'cache-control': 'no-store' }).end();
  return Promise.resolve();
}

/**
 * Where to send the visitor back: `asked` if it is an address of this site (a path below its root,
 * on its origin), else the site's root. Never another site or another origin (no open redirect).
 */
export function locationOnSite(address: Pick<SiteAddress, 'base' | 'basePath'>, asked: unknown): string {
  if (typeof asked !== 'string' || !asked.startsWith(address.basePath) || /[\\\0\r\n]/.test(asked) || asked.startsWith('//')) return address.basePath;
  let url: URL;
  try {
    url = new URL(asked, address.base);
  } catch {
    return address.basePath;
  }
  if (url.origin !== new URL(address.base).origin || !url.pathname.startsWith(address.basePath) || url.pathname.includes('/~/auth/')) return address.basePath;
  return `${url.pathname}${url.search}`;
}

/** A sign-in that did not complete: a page that says so (the detail goes to the log) and a way to start again. */
function signInFailed({ ctx, req, res, address }: OnSite, error: OidcSignInError): Promise<void> {
  ctx.logger.warn({ siteId: address.site._id, detail: error.detail }, `visitor sign-in failed: ${error.message}`);
  const frame = bareFrame(address.basePath, address.site.title, `Sign in | ${address.site.title}`);
  return sendText(req, res, 401, 'text/html', messageHtml(frame, 'Sign-in did not complete', error.message), { 'cache-control': 'no-store' });
}

async function signingIn(input: OnSite, work: () => Promise<void>): Promise<void> {
  if (!input.address.site.visitorAuth.oidc) return notFound(input.req, input.res, input.address.basePath);
  try {
    await work();
  } catch (error) {
    if (error instanceof OidcSignInError) return signInFailed(input, error);
    throw error;
  }
}

export const OIDC_PATHS: SitePath[] = [
  {
    name: 'sign-in with OpenID Connect',
    audience: 'site',
    matches: only(...OIDC_LOGIN_PATH.split('/')),
    serve: (input) =>
      signingIn(input, async () => {
        const { ctx, req, res, address } = input;
        const location = locationOnSite(address, (req.query as Record<string, unknown>).location);
        const { authorizationUrl, sealedState } = await beginSignIn(ctx.config, address.site, { redirectUri: `${address.base}${CALLBACK_PATH}`, location });
        setSiteCookie(res, address, SIGN_IN_COOKIE, sealedState, SIGN_IN_BELOW, SIGN_IN_TTL_S * 1000);
        await redirect(res, authorizationUrl);
      }),
  },
  {
    name: 'back from OpenID Connect',
    audience: 'site',
    matches: only(...CALLBACK_PATH.split('/')),
    serve: (input) =>
      signingIn(input, async () => {
        const { ctx, req, res, address } = input;
        const query = new URL(req.originalUrl, 'http://site.invalid').searchParams;
        const sealedState = parseCookies(req.headers.cookie ?? '')[SIGN_IN_COOKIE];
        // One try per sign-in: whatever happens, its state is spent.
        clearSiteCookie(res, address, SIGN_IN_COOKIE, SIGN_IN_BELOW);
        const { claims, location } = await finishSignIn(ctx.config, address.site, { sealedState, query });
        const session = sessionToken(address.site, claims);
        // A browser drops a cookie over 4 KB without a word: the visitor would go round the sign-in for ever.
        if (session.token.length > MAX_SESSION_BYTES)
          throw new OidcSignInError(
            'Your account carries more details than this site can keep: ask its admins to ask the provider for fewer scopes.',
            `${session.token.length}-byte session`,
          );
        setVisitorSession(res, address, session.token, session.expires);
        await redirect(res, locationOnSite(address, location));
      }),
  },
  {
    name: 'sign out',
    audience: 'site',
    matches: only('~', 'auth', 'logout'),
    serve: async ({ ctx, res, address }) => {
      clearSiteCookie(res, address, VISITOR_COOKIE);
      const { site } = address;
      const atProvider = site.visitorAuth.oidc ? await endSessionUrl(ctx.config, site, address.base) : undefined;
      return redirect(res, atProvider ?? logoutAddress(site) ?? address.basePath);
    },
  },
];
