import { identity } from '@quire/proto';
import { ClientError, grpcStatus, hashSecret, tokenCacheKey, type InvalidatedCache, type Principal, type RedisClient } from '@quire/runtime';
import { HttpError } from '@quire/http';

type IdentityClient = identity.IdentityServiceClient<{ deadline?: number }>;

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
    const remembered = memory?.lookup(tokenHash);
    if (remembered) return { ...remembered, tokenHash };
    // A revocation announced while this lookup runs wins: its answer then serves this request only.
    const mark = memory?.mark() ?? 0;
    const key = tokenCacheKey(tokenHash);
    const cached = options.cacheSeconds > 0 ? await options.redis.get(key).catch(() => null) : null;
    if (cached) {
      const principal = JSON.parse(cached) as Principal;
      memory?.keep(tokenHash, principal, mark);
      return { ...principal, tokenHash };
    }
    try {
      const resolved = await options.identity.resolveToken({ token });
      const principal: Principal = { userId: resolved.user!.id, tokenId: resolved.tokenId };
      // A token scoped to one organization (SSO) carries the scope to every service.
      if (resolved.organizationId) principal.organizationId = resolved.organizationId;
      const current = memory ? memory.keep(tokenHash, principal, mark) : true;
      if (options.cacheSeconds > 0 && current) await options.redis.set(key, JSON.stringify(principal), 'EX', options.cacheSeconds).catch(() => {});
      return { ...principal, tokenHash };
    } catch (error) {
      if (error instanceof ClientError && error.code === grpcStatus.NOT_FOUND) throw new HttpError(401, 'Invalid or revoked API token');
      if (error instanceof ClientError) throw new HttpError(503, 'Authentication is temporarily unavailable');
      throw error;
    }
  };
}
