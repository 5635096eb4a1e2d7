import http from 'node:http';
import { clientsOf, createRateLimiter } from '@quire/http';
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
  type ServiceHandle,
} from '@quire/runtime';
import { createGatewayApp, replicasOf } from './app';
import { createAuthenticator } from './auth';
import { grpcAddrOf, SERVICES, type GatewayConfig } from './config';
import { createMetrics, metricsListener } from './metrics';
import { createApiDocument } from './openapi';
import { createSiteRevisits } from './site-revisits';

/** Starts the gateway on config.PORT, and its metrics on config.METRICS_PORT when set; resolves once they listen. */
export async function startGateway(config: GatewayConfig, options: { handleSignals?: boolean; logger?: Logger } = {}) {
  const logger = options.logger ?? createLogger('gateway', config.LOG_LEVEL);
  const redis = createRedis(config, logger);
  const secret = config.INTERNAL_HMAC_SECRET;
  const { identity: identityClient, publishing: publishingClient } = clientsOf({ clients: createServiceClients(config, 'gateway') });
  // Resolved tokens in memory too: a hot token costs neither a Redis nor an identity round trip.
  const memory = config.AUTH_CACHE_SECONDS > 0 ? createTokenCache<Principal>(redis, { ttlMs: config.AUTH_CACHE_SECONDS * 1000, logger }) : undefined;
  const health = SERVICES.map((service) => ({ service, client: createHealthClient({ address: grpcAddrOf(config, service), secret, caller: 'gateway' }) }));

  const metrics = createMetrics();
  const replicas = replicasOf(config, logger);
  const siteRevisits = createSiteRevisits({ redis, logger, record: (views) => publishingClient.recordSiteViews({ views }) });

  const app = createGatewayApp({
    config,
    logger,
    authenticate: createAuthenticator({ identity: identityClient, redis, cacheSeconds: config.AUTH_CACHE_SECONDS, memory }),
    consumeRate: createRateLimiter({ redis, points: config.RATE_LIMIT_POINTS, durationSeconds: config.RATE_LIMIT_DURATION_SECONDS }),
    metrics,
    apiDocument: createApiDocument(config, logger),
    replicas,
    siteRevisits,
    async ready() {
      if (draining) return { ready: false, checks: { accepting: false } };
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

  let metricsServer: ServiceHandle | undefined;
  // Stopping, the gateway says it is not ready for SHUTDOWN_DRAIN_MS (its balancer stops sending it requests), then closes.
  let draining = false;
  const handle = await runService({
    name: 'gateway',
    logger,
    host: config.BIND_HOST,
    httpPort: config.PORT,
    httpHandler: app as unknown as http.RequestListener,
    handleSignals: options.handleSignals,
    drainMs: config.SHUTDOWN_DRAIN_MS,
    onDrain: () => (draining = true),
    onStop: async () => {
      // The views of the revisits answered here are recorded before publishing is let go.
      await siteRevisits.flush();
      siteRevisits.close();
      for (const service of Object.values(replicas)) service.close();
      await metricsServer?.stop();
      memory?.close();
      redis.disconnect();
    },
  });
  if (config.METRICS_PORT !== undefined) {
    try {
      metricsServer = await runService({
        name: 'gateway metrics',
        logger,
        host: config.BIND_HOST,
        httpPort: config.METRICS_PORT,
        httpHandler: metricsListener(metrics.registry),
        // The gateway's own stop (signals included) stops it.
        handleSignals: false,
      });
    } catch (error) {
      await handle.stop();
      throw error;
    }
  } else logger.info('metrics are not served: METRICS_PORT is not set');
  return { port: handle.httpPort!, metricsPort: metricsServer?.httpPort, stop: handle.stop };
}
