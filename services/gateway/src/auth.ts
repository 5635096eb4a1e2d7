import { grpcStatus, hashSecret, tokenCacheKey, type InvalidatedCache, type Principal, type RedisClient } from '@quire/runtime';
import { HttpError, ServiceError, type IdentityClient } from '@quire/http';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Turns `Authorization: Bearer <token>` into a principal (with the token's organization scope,
 * if any): from this process's memory when a recent resolution is there, else from the Redis
 * cache shared by the replicas, else from the identity service over gRPC. Identity drops a
 * revoked token from Redis and then announces it, which drops it from every replica's memory.
 */
export function createAuthenticator(options: { identity: IdentityClient; redis: RedisClient; cacheSeconds: number; memory?: InvalidatedCache<Principal> }) {
  const memory = options.cacheSeconds > 0 ? options.memory : undefined;
  return async function authenticate(header: string | undefined): Promise<Principal & { tokenHash: string }> {
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    if (!token) throw new HttpError(401, 'Authentication required: send Authorization: Bearer <token>');
    const tokenHash = hashSecret(token);
    // An expired principal (installation tokens expire) is never served from a cache: identity answers for it.
    const live = (found: Principal | undefined) => (found?.expiresAt !== undefined && found.expiresAt <= Date.now() ? undefined : found);
    const remembered = live(memory?.lookup(tokenHash));
    if (remembered) return { ...remembered, tokenHash };
    // A revocation announced while this lookup runs wins: its answer then serves this request only.
    const mark = memory?.mark() ?? 0;
    const key = tokenCacheKey(tokenHash);
    const cached = options.cacheSeconds > 0 ? await options.redis.get(key).catch(() => null) : null;
    const shared = cached ? live(JSON.parse(cached) as Principal) : undefined;
    if (shared) {
      memory?.keep(tokenHash, shared, mark);
      return { ...shared, tokenHash };
    }
    try {
      const resolved = await options.identity.resolveToken({ token });
      const principal: Principal = { userId: resolved.user!.id, tokenId: resolved.tokenId };
      // A token scoped to one organization (SSO, an installation's) carries the scope to every service.
      if (resolved.organizationId) principal.organizationId = resolved.organizationId;
      // An installation's token: its integration's scopes, for the rules that go by scope.
      if (resolved.installationId) principal.installationScopes = resolved.installationScopes;
      // A token that expires is cached no longer than it lives.
      if (resolved.expireTime) principal.expiresAt = resolved.expireTime.getTime();
      const seconds =
        principal.expiresAt === undefined ? options.cacheSeconds : Math.min(options.cacheSeconds, Math.floor((principal.expiresAt - Date.now()) / 1000));
      const current = memory ? memory.keep(tokenHash, principal, mark) : true;
      if (seconds > 0 && current) await options.redis.set(key, JSON.stringify(principal), 'EX', seconds).catch(() => {});
      return { ...principal, tokenHash };
    } catch (error) {
      if (error instanceof ServiceError && error.code === grpcStatus.NOT_FOUND) throw new HttpError(401, 'Invalid or revoked API token');
      if (error instanceof ServiceError) throw new HttpError(503, 'Authentication is temporarily unavailable');
      throw error;
    }
  };
}
