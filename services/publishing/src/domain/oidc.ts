import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type * as OpenId from 'openid-client';
import { httpError } from '@quire/http';
import { checkEgressUrlForm, EgressError, egressFetch, type EgressPolicy } from '@quire/runtime';
import type { PublishingConfig } from '../config';
import type { SiteDoc } from '../db/models';

/*
 * OpenID Connect sign-in for visitor-auth sites, beside the signed-JWT flow (visitor-auth.ts):
 * the site names a provider (issuer, client id and secret, scopes); a visitor is sent to it with
 * an authorization code request (PKCE S256, state, nonce), and the ID token the code is exchanged
 * for — checked by openid-client, a certified relying-party library — gives the visitor's claims.
 *
 * The provider is an address an admin chose: it is reached only through the egress policy
 * (libs/runtime egress-fetch.ts: global addresses only unless PUBLISHING_ALLOW_PRIVATE_NETWORKS,
 * pinned, no redirects followed, bounded), and must be https (http only with that setting).
 * Nothing of a sign-in is held by one process: its PKCE verifier, state and nonce travel sealed
 * (AES-256-GCM) in the visitor's cookie. The client secret is stored sealed the same way, under a
 * key derived from INTERNAL_HMAC_SECRET and bound to its site, and is never shown or logged.
 */

export type StoredOidc = NonNullable<SiteDoc['visitorAuth']['oidc']>;

/** openid-client, loaded at the first sign-in (an ES module: CommonJS loads it with import()). */
let openidClient: Promise<typeof OpenId> | undefined;
const loadOpenid = () => (openidClient ??= import('openid-client'));

/** What an admin sends to set the provider (PATCH …/publishing/auth `oidc`). */
export interface OidcInput {
  issuer: string;
  clientId: string;
  /** Required when the provider is first set, or its issuer or client id change; else the stored one is kept. */
  clientSecret?: string;
  scopes?: string[];
}

export const DEFAULT_SCOPES = ['openid', 'profile', 'email'];
/** How long a visitor has to come back from the provider. */
export const SIGN_IN_TTL_S = 600;
/** Bounds of every exchange with the provider. */
const PROVIDER_TIMEOUT_MS = 10_000;
const PROVIDER_MAX_BYTES = 1_000_000;

export const egressPolicyOf = (config: Pick<PublishingConfig, 'PUBLISHING_ALLOW_PRIVATE_NETWORKS'>): EgressPolicy => ({
  allowPrivateNetworks: config.PUBLISHING_ALLOW_PRIVATE_NETWORKS,
});

// ---- sealing -------------------------------------------------------------------------------

type KeyConfig = Pick<PublishingConfig, 'INTERNAL_HMAC_SECRET'>;
const SEALED = 'v1';
const keys = new Map<string, Buffer>();

function keyOf(config: KeyConfig): Buffer {
  let key = keys.get(config.INTERNAL_HMAC_SECRET);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', config.INTERNAL_HMAC_SECRET, 'quire publishing', 'visitor sign-in: aes-256-gcm v1', 32));
    keys.set(config.INTERNAL_HMAC_SECRET, key);
  }
  return key;
}

/** `plaintext` sealed for `purpose` (additional authenticated data: a value moved elsewhere does not open). */
function seal(config: KeyConfig, plaintext: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(config), iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [SEALED, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

/** What `seal` sealed for the same purpose, or undefined (another key or purpose, or altered). */
function unseal(config: KeyConfig, sealed: string, purpose: string): string | undefined {
  const [format, iv, tag, data, extra] = sealed.split('.');
  if (format !== SEALED || !iv || !tag || data === undefined || extra !== undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(config), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

const secretPurpose = (site: Pick<SiteDoc, '_id'>) => `site/${site._id}/oidc/client-secret`;
const signInPurpose = (site: Pick<SiteDoc, '_id'>) => `site/${site._id}/oidc/sign-in`;

// ---- settings ------------------------------------------------------------------------------

/**
 * The issuer as given, if its form lets the service call it: an https URL (http too when private
 * networks are allowed), no credentials, query or fragment, and a host the egress policy does not
 * refuse (an IP literal or `localhost`; a name is checked at each connection). 400 naming the field.
 */
export function checkIssuer(config: Pick<PublishingConfig, 'PUBLISHING_ALLOW_PRIVATE_NETWORKS'>, issuer: string): string {
  const policy = egressPolicyOf(config);
  let url: URL;
  try {
    url = checkEgressUrlForm(issuer, policy);
  } catch (error) {
    if (error instanceof EgressError) throw httpError.badRequest(`oidc.issuer: ${error.message}`);
    throw error;
  }
  if (url.protocol !== 'https:' && !policy.allowPrivateNetworks) throw httpError.badRequest('oidc.issuer: must be an https URL');
  if (url.search || url.hash || issuer.includes('#') || issuer.includes('?')) throw httpError.badRequest('oidc.issuer: must have no query or fragment');
  return issuer;
}

/** The provider settings to store for `input` (null removes them), the client secret sealed. */
export function oidcSettingsOf(config: PublishingConfig, site: SiteDoc, input: OidcInput | null): StoredOidc | null {
  if (input === null) return null;
  const issuer = checkIssuer(config, input.issuer);
  const previous = site.visitorAuth.oidc;
  const sameClient = previous && previous.issuer === issuer && previous.clientId === input.clientId;
  // A secret is never sent to a provider it was not given for.
  if (input.clientSecret === undefined && !sameClient)
    throw httpError.badRequest('oidc.clientSecret: required when the provider is set or its issuer or client id change');
  const sealedClientSecret = input.clientSecret !== undefined ? seal(config, input.clientSecret, secretPurpose(site)) : previous!.sealedClientSecret;
  const scopes = [...new Set(['openid', ...(input.scopes ?? previous?.scopes ?? DEFAULT_SCOPES)])];
  return { issuer, clientId: input.clientId, sealedClientSecret, scopes };
}

/** The provider settings as admins see them: never the secret, only that there is one. */
export function presentOidc(site: SiteDoc, siteAddress: string) {
  const settings = site.visitorAuth.oidc;
  if (!settings) return undefined;
  return {
    issuer: settings.issuer,
    clientId: settings.clientId,
    scopes: settings.scopes,
    clientSecretSet: true,
    redirectURL: `${siteAddress}${CALLBACK_PATH}`,
    postLogoutRedirectURL: siteAddress,
  };
}

/** Below a site's root: where the provider sends the visitor back (the redirect URI to register). */
export const CALLBACK_PATH = '~/auth/oidc/callback';

// ---- sign-in -------------------------------------------------------------------------------

/**
 * A sign-in did not complete (the visitor is not signed in: a 401 sign-in page): `message` may be
 * shown to the visitor, `detail` is for the log only.
 */
export class OidcSignInError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'OidcSignInError';
  }
}

/** The provider's configuration (discovery from its issuer), every exchange under the egress policy. */
async function providerOf(config: PublishingConfig, site: SiteDoc): Promise<OpenId.Configuration> {
  const openid = await loadOpenid();
  const settings = site.visitorAuth.oidc;
  if (!settings) throw new OidcSignInError('This site has no sign-in provider.');
  const clientSecret = unseal(config, settings.sealedClientSecret, secretPurpose(site));
  if (clientSecret === undefined)
    throw new OidcSignInError(
      'Sign-in is not available at the moment.',
      'the stored client secret does not open (INTERNAL_HMAC_SECRET changed?): set it again',
    );
  const fetcher = egressFetch(egressPolicyOf(config), { timeoutMs: PROVIDER_TIMEOUT_MS, maxResponseBytes: PROVIDER_MAX_BYTES });
  const customFetch: OpenId.CustomFetch = (url, options) =>
    fetcher(
      new Request(url, {
        method: options.method,
        headers: options.headers,
        body: options.body as RequestInit['body'],
        redirect: 'manual',
        signal: options.signal,
      }),
    );
  const issuer = new URL(settings.issuer);
  try {
    return await openid.discovery(issuer, settings.clientId, undefined, openid.ClientSecretBasic(clientSecret), {
      [openid.customFetch]: customFetch,
      timeout: PROVIDER_TIMEOUT_MS / 1000,
      // http only gets this far with PUBLISHING_ALLOW_PRIVATE_NETWORKS (checkIssuer).
      ...(issuer.protocol === 'http:' && config.PUBLISHING_ALLOW_PRIVATE_NETWORKS ? { execute: [openid.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw new OidcSignInError('The sign-in provider could not be reached.', `discovery of ${settings.issuer}: ${reasonOf(error)}`);
  }
}

const reasonOf = (error: unknown): string => {
  const { message, code, cause } = error as { message?: string; code?: string; cause?: { message?: string; detail?: string } };
  return [code, message, cause?.detail ?? cause?.message].filter(Boolean).join(': ');
};

/** What a sign-in carries from the visitor's way out to the provider to their way back (sealed in their cookie). */
interface SignInState {
  verifier: string;
  state: string;
  nonce: string;
  /** The site address to come back to (a path of this site). */
  location: string;
  redirectUri: string;
  expires: number;
}

/** The provider's authorization address for a new sign-in, and its state, sealed, for the visitor's cookie. */
export async function beginSignIn(
  config: PublishingConfig,
  site: SiteDoc,
  input: { redirectUri: string; location: string },
): Promise<{ authorizationUrl: string; sealedState: string }> {
  const openid = await loadOpenid();
  const provider = await providerOf(config, site);
  const verifier = openid.randomPKCECodeVerifier();
  const signIn: SignInState = {
    verifier,
    state: openid.randomState(),
    nonce: openid.randomNonce(),
    location: input.location,
    redirectUri: input.redirectUri,
    expires: Date.now() + SIGN_IN_TTL_S * 1000,
  };
  const url = openid.buildAuthorizationUrl(provider, {
    redirect_uri: input.redirectUri,
    scope: site.visitorAuth.oidc!.scopes.join(' '),
    code_challenge: await openid.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: signIn.state,
    nonce: signIn.nonce,
  });
  return { authorizationUrl: url.href, sealedState: seal(config, JSON.stringify(signIn), signInPurpose(site)) };
}

/**
 * The visitor back from the provider (`query`: the callback's query string): the code exchanged
 * with the PKCE verifier, the ID token checked (issuer, audience, signature, expiry, nonce), and
 * its claims with where the visitor was going.
 */
export async function finishSignIn(
  config: PublishingConfig,
  site: SiteDoc,
  input: { sealedState: string | undefined; query: URLSearchParams },
): Promise<{ claims: Record<string, unknown>; location: string }> {
  const opened = input.sealedState ? unseal(config, input.sealedState, signInPurpose(site)) : undefined;
  const signIn = opened ? (JSON.parse(opened) as SignInState) : undefined;
  if (!signIn || signIn.expires < Date.now()) throw new OidcSignInError('This sign-in has expired or was started elsewhere: sign in again.');
  const refused = input.query.get('error');
  if (refused) throw new OidcSignInError('The sign-in provider did not sign you in.', `provider answered ${refused.slice(0, 100)}`);
  const openid = await loadOpenid();
  const provider = await providerOf(config, site);
  const currentUrl = new URL(signIn.redirectUri);
  currentUrl.search = input.query.toString();
  try {
    const tokens = await openid.authorizationCodeGrant(provider, currentUrl, {
      pkceCodeVerifier: signIn.verifier,
      expectedState: signIn.state,
      expectedNonce: signIn.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    return { claims: { ...claims }, location: signIn.location };
  } catch (error) {
    throw new OidcSignInError('The sign-in could not be completed: sign in again.', `code exchange with ${site.visitorAuth.oidc?.issuer}: ${reasonOf(error)}`);
  }
}

/** The provider's end-session address for a visitor signing out (undefined when it has none or cannot be reached). */
export async function endSessionUrl(config: PublishingConfig, site: SiteDoc, postLogoutRedirectUri: string): Promise<string | undefined> {
  const openid = await loadOpenid();
  try {
    const provider = await providerOf(config, site);
    if (!provider.serverMetadata().end_session_endpoint) return undefined;
    return openid.buildEndSessionUrl(provider, { client_id: provider.clientMetadata().client_id, post_logout_redirect_uri: postLogoutRedirectUri }).href;
  } catch (error) {
    if (error instanceof OidcSignInError) return undefined;
    throw error;
  }
}
