import { createHmac, timingSafeEqual } from 'node:crypto';

/** Who is calling: resolved by the gateway from the bearer token. */
export interface Principal {
  userId: string;
  tokenId: string;
  /**
   * Set when the token is scoped to one organization (a token issued by that organization's
   * SSO): the caller then acts as a non-member of every other organization.
   */
  organizationId?: string;
  /**
   * Set for an integration installation's token (it is then scoped to the installation's
   * organization): the scopes its installer approved that the integration still asks for, for
   * the few rules that go by scope rather than by role (`space:metadata:write` renames spaces).
   */
  installationScopes?: string[];
  /**
   * When the token stops being valid (epoch ms), for a token that expires (an installation's):
   * the gateway's caches drop the principal then. Not forwarded to services.
   */
  expiresAt?: number;
}

export const PRINCIPAL_HEADER = 'x-quire-principal';
export const SIGNATURE_HEADER = 'x-quire-signature';
export const REQUEST_ID_HEADER = 'x-request-id';
/** What a request id given by a client (or a proxy) may look like; anything else is replaced by a new one. */
export const REQUEST_ID_PATTERN = /^[\w.-]{1,128}$/;
/** The visitor's address as the gateway resolved it (its trusted proxies applied), on the requests of published sites it forwards. */
export const CLIENT_ADDRESS_HEADER = 'x-quire-client-address';
/** Headers only the gateway may set; it strips them from every incoming request. */
export const INTERNAL_HEADERS = [PRINCIPAL_HEADER, SIGNATURE_HEADER, CLIENT_ADDRESS_HEADER];

/** A signed assertion is refused when older than this (replay window). */
const MAX_AGE_SECONDS = 300;

function mac(secret: string, value: string): string {
  return createHmac('sha256', secret).update(value).digest('base64url');
}

function sameMac(secret: string, value: string, signature: string): boolean {
  const expected = Buffer.from(mac(secret, value));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Header values the gateway forwards: the principal, and its HMAC. */
export function signPrincipal(secret: string, principal: Principal, now = Date.now()): { value: string; signature: string } {
  // Only the Principal's own fields: whatever else the caller's object carries stays out of the header.
  const { userId, tokenId, organizationId, installationScopes } = principal;
  const claims = {
    userId,
    tokenId,
    ...(organizationId ? { organizationId } : {}),
    ...(installationScopes ? { installationScopes } : {}),
    iat: Math.floor(now / 1000),
  };
  const value = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { value, signature: mac(secret, value) };
}

/** The principal when the header carries a valid, fresh signature; undefined otherwise. */
export function verifyPrincipal(secret: string, value: unknown, signature: unknown, now = Date.now()): Principal | undefined {
  if (typeof value !== 'string' || typeof signature !== 'string' || !sameMac(secret, value, signature)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (typeof claims.userId !== 'string' || typeof claims.iat !== 'number') return undefined;
    if (claims.organizationId !== undefined && (typeof claims.organizationId !== 'string' || !claims.organizationId)) return undefined;
    const scopes: unknown = claims.installationScopes;
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((scope) => typeof scope === 'string'))) return undefined;
    if (Math.abs(now / 1000 - claims.iat) > MAX_AGE_SECONDS) return undefined;
    const principal: Principal = { userId: claims.userId, tokenId: String(claims.tokenId ?? '') };
    if (claims.organizationId) principal.organizationId = claims.organizationId;
    if (scopes) principal.installationScopes = scopes as string[];
    return principal;
  } catch {
    return undefined;
  }
}

/** Service-to-service assertion carried in gRPC metadata: "<service>.<epoch seconds>". */
export function signCaller(secret: string, service: string, now = Date.now()): { caller: string; signature: string } {
  const caller = `${service}.${Math.floor(now / 1000)}`;
  return { caller, signature: mac(secret, caller) };
}

/** The calling service's name when the assertion is valid and fresh. */
export function verifyCaller(secret: string, caller: unknown, signature: unknown, now = Date.now()): string | undefined {
  if (typeof caller !== 'string' || typeof signature !== 'string' || !sameMac(secret, caller, signature)) return undefined;
  const dot = caller.lastIndexOf('.');
  const issued = Number(caller.slice(dot + 1));
  if (dot <= 0 || !Number.isFinite(issued) || Math.abs(now / 1000 - issued) > MAX_AGE_SECONDS) return undefined;
  return caller.slice(0, dot);
}

/** Redis key (under the deployment prefix) of a resolved token in the gateway's cache. */
export function tokenCacheKey(tokenHash: string): string {
  return `auth:token:${tokenHash}`;
}
