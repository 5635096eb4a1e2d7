import http from 'node:http';
import {
  createHealthClient,
  createLogger,
  createRedis,
  createServiceClients,
  createTokenCache,
  isServing,
  runService,
  type Logger,
  type Principal,
} from '@quire/runtime';
import { createGatewayApp } from './app';
import { createAuthenticator } from './auth';
import { grpcAddrOf, SERVICES, type GatewayConfig } from './config';
import { createMetrics } from './metrics';
import { createApiDocument } from './openapi';
import { createRateLimiter } from './rate-limit';

/** Starts the gateway on config.PORT; resolves once it listens. */
export async function startGateway(config: GatewayConfig, options: { handleSignals?: boolean; logger?: Logger } = {}) {
  const logger = options.logger ?? createLogger('gateway', config.LOG_LEVEL);
  const redis = createRedis(config, logger);
  const secret = config.INTERNAL_HMAC_SECRET;
  const { identity: identityClient } = createServiceClients(config, 'gateway');
  // Resolved tokens in memory too: a hot token costs neither a Redis nor an identity round trip.
  const memory = config.AUTH_CACHE_SECONDS > 0 ? createTokenCache<Principal>(redis, { ttlMs: config.AUTH_CACHE_SECONDS * 1000, logger }) : undefined;
  const health = SERVICES.map((service) => ({ service, client: createHealthClient({ address: grpcAddrOf(config, service), secret, caller: 'gateway' }) }));

  const app = createGatewayApp({
    config,
    logger,
    authenticate: createAuthenticator({ identity: identityClient, redis, cacheSeconds: config.AUTH_CACHE_SECONDS, memory }),
    consumeRate: createRateLimiter({ redis, points: config.RATE_LIMIT_POINTS, durationSeconds: config.RATE_LIMIT_DURATION_SECONDS }),
    metrics: createMetrics(),
    apiDocument: createApiDocument(config, logger),
    async ready() {
      const [redisOk, ...services] = await Promise.all([
        redis.ping().then(
          (r) => r === 'PONG',
          () => false,
        ),
        ...health.map(({ client }) => isServing(client)),
      ]);
      const checks: Record<string, boolean> = { redis: redisOk };
      health.forEach(({ service }, i) => (checks[service] = services[i]));
      return { ready: Object.values(checks).every(Boolean), checks };
    },
  });
  app.set('trust proxy', config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false);

  const handle = await runService({
    name: 'gateway',
    logger,
    host: config.BIND_HOST,
    httpPort: config.PORT,
    httpHandler: app as unknown as http.RequestListener,
    handleSignals: options.handleSignals,
    onStop: async () => {
      memory?.close();
      redis.disconnect();
    },
  });
  return { port: handle.httpPort!, stop: handle.stop };
}
