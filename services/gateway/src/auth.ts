import { identity } from '@quire/proto';
import { ClientError, grpcStatus, hashSecret, tokenCacheKey, type Principal, type RedisClient } from '@quire/runtime';
import { HttpError } from '@quire/http';

type IdentityClient = identity.IdentityServiceClient<{ deadline?: number }>;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Turns `Authorization: Bearer <token>` into a principal: from the Redis cache when a
 * recent resolution is there, else from the identity service over gRPC.
 */
export function createAuthenticator(options: { identity: IdentityClient; redis: RedisClient; cacheSeconds: number }) {
  return async function authenticate(header: string | undefined): Promise<Principal & { tokenHash: string }> {
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    if (!token) throw new HttpError(401, 'Authentication required: send Authorization: Bearer <token>');
    const tokenHash = hashSecret(token);
    const key = tokenCacheKey(tokenHash);
    const cached = options.cacheSeconds > 0 ? await options.redis.get(key).catch(() => null) : null;
    if (cached) return { ...(JSON.parse(cached) as Principal), tokenHash };
    try {
      const resolved = await options.identity.resolveToken({ token });
      const principal: Principal = { userId: resolved.user!.id, tokenId: resolved.tokenId };
      if (options.cacheSeconds > 0) await options.redis.set(key, JSON.stringify(principal), 'EX', options.cacheSeconds).catch(() => {});
      return { ...principal, tokenHash };
    } catch (error) {
      if (error instanceof ClientError && error.code === grpcStatus.NOT_FOUND) throw new HttpError(401, 'Invalid or revoked API token');
      if (error instanceof ClientError) throw new HttpError(503, 'Authentication is temporarily unavailable');
      throw error;
    }
  };
}
