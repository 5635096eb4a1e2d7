import { createEventBus, type EventBus } from '@quire/async';
import { collectDefaultMetrics, Registry } from 'prom-client';
import {
  connectDatabase,
  counterOf,
  createCaches,
  histogramOf,
  createServiceClients,
  createGrpcServer,
  createLogger,
  createRedis,
  runService,
  type BackendConfig,
  type CacheDeclarations,
  type Caches,
  type Database,
  type GrpcServerHandle,
  type Logger,
  type MetricsRegistry,
  type RedisClient,
  type ServiceClients,
} from '@quire/runtime';
import { createServiceApp, finishServiceApp } from './app';
import { openApiPart } from './openapi';
import { routerOf, type Route } from './routes';

export interface ServiceDeps<C extends BackendConfig, D extends CacheDeclarations = Record<never, never>> {
  name: string;
  config: C;
  logger: Logger;
  db: Database;
  redis: RedisClient;
  /** gRPC connections to the other services (made on first use): callers use them through clientsOf(ctx), the typed clients. */
  clients: ServiceClients;
  /** The cross-service domain event stream (opened on first use, closed on stop; its subscriptions' lag reported in `metrics`). */
  events: EventBus;
  /** This instance's in-process caches, as its modules declared them (libs/runtime caches.ts). */
  caches: Caches<D>;
  /** This process's Prometheus registry, served at /metrics on the service's own port (counters: libs/runtime counterOf). */
  metrics: MetricsRegistry;
}

export interface RunningService<C extends BackendConfig, X = ServiceDeps<C>> {
  deps: ServiceDeps<C>;
  /** The domain context routes and gRPC methods work with. */
  context: X;
  httpPort: number;
  grpcPort: number;
  stop(): Promise<void>;
}

/**
 * Boots one backend service the same way for all of them: its own database with its
 * indexes, Redis, the REST app (health, readiness, conventions) and the gRPC server.
 */
export async function startBackendService<C extends BackendConfig, D extends CacheDeclarations = Record<never, never>, X = ServiceDeps<C, D>>(options: {
  name: string;
  config: C;
  models: (db: Database) => void;
  /**
   * The caches the service's modules keep (declareCache): made here for this instance, sharing
   * config.CACHE_BUDGET_MB, and reported at GET /metrics.
   */
  caches?: D;
  /** Builds what routes and gRPC methods work with (the domain context), once. */
  context?: (deps: ServiceDeps<C, D>) => X;
  /** The service's REST routes, as data (libs/http routes.ts): mounted in this order. */
  routes?: (context: X) => Route[];
  grpc?: (server: GrpcServerHandle, context: X) => void;
  /**
   * Work that runs beside requests once the service listens (job workers, event
   * subscriptions); what it returns is awaited on stop, before the datastores close.
   */
  background?: (context: X) => Promise<(() => Promise<void>) | void>;
  handleSignals?: boolean;
  logger?: Logger;
}): Promise<RunningService<C, X>> {
  const { name, config } = options;
  const logger = options.logger ?? createLogger(name, config.LOG_LEVEL);
  const metrics = new Registry();
  // The runtime's own (CPU, memory, event loop lag, GC, handles), as the gateway serves them.
  collectDefaultMetrics({ register: metrics });
  const redis = createRedis(config, logger, metrics);
  const db = await connectDatabase(name, config, logger, options.models, {
    redis,
    writeSerialization: config.WRITE_SERIALIZATION,
    ferretdbPostgresUrl: config.QUIRE_FERRETDB_POSTGRES_URL,
    metrics,
  });
  let events: EventBus | undefined;
  const deps: ServiceDeps<C, D> = {
    name,
    config,
    logger,
    db,
    redis,
    clients: createServiceClients(config, name),
    get events() {
      return (events ??= createEventBus({ redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX, logger, metrics }));
    },
    caches: createCaches(options.caches ?? ({} as D), { budgetMb: config.CACHE_BUDGET_MB, registry: metrics }),
    metrics,
  };
  const context = options.context ? options.context(deps) : (deps as X);

  const available = () => db.readyState === 1 && redis.status === 'ready';
  // A stopping replica reports not ready while it drains (runService), whatever its datastores say.
  let draining = false;
  const ready = async () => !draining && available() && (await redis.ping()) === 'PONG';
  const app = createServiceApp({ logger, secret: config.INTERNAL_HMAC_SECRET, ready, available });
  // The requests this process answered (health probes apart): with several replicas, how the gateway spreads them.
  const requests = counterOf(metrics, {
    name: 'quire_http_requests_total',
    help: 'HTTP requests this service process answered',
    labelNames: ['method', 'status'] as const,
  });
  const routes = options.routes?.(context) ?? [];
  // This service's part of the API document (the gateway merges the parts behind /v1/openapi.json);
  // outside /v1, so the gateway never forwards a caller here.
  const apiPart = openApiPart(routes, { tag: name });
  app.get('/openapi.json', (_req, res) => {
    res.json(apiPart);
  });
  // Prometheus metrics (the caches'), on the service's own port: only the gateway and the cluster reach it, never the public.
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.metrics());
  });
  // RED per route, as OpenTelemetry's http.server.request.duration (seconds); requests no route took are "unmatched".
  const durations = histogramOf(metrics, {
    name: 'http_server_request_duration_seconds',
    help: 'Duration of the HTTP requests this service process answered, by method, route and status',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
  });
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      requests.inc({ method: req.method, status: String(res.statusCode) });
      const route = typeof res.locals.route === 'string' ? res.locals.route : 'unmatched';
      durations.observe(
        { http_request_method: req.method, http_route: route, http_response_status_code: String(res.statusCode) },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  });
  app.use(routerOf(routes));
  finishServiceApp(app, logger);

  const grpc = createGrpcServer({
    host: config.BIND_HOST,
    port: config.GRPC_PORT,
    secret: config.INTERNAL_HMAC_SECRET,
    logger,
    available,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    registry: metrics,
  });
  options.grpc?.(grpc, context);
  // The gRPC health status (what the gateway's /readyz asks) follows the datastores.
  const unhealthy = () => grpc.health.setStatus('unhealthy');
  const recheck = () => void ready().then((ok) => grpc.health.setStatus(ok ? 'healthy' : 'unhealthy'), unhealthy);
  db.on('disconnected', unhealthy);
  db.on('reconnected', recheck);
  redis.on('end', unhealthy);
  redis.on('error', unhealthy);
  redis.on('ready', recheck);

  let stopBackground: (() => Promise<void>) | undefined;
  const handle = await runService({
    name,
    logger,
    host: config.BIND_HOST,
    httpPort: config.HTTP_PORT,
    httpHandler: app,
    grpc,
    handleSignals: options.handleSignals,
    drainMs: config.SHUTDOWN_DRAIN_MS,
    onDrain: () => {
      draining = true;
      unhealthy();
    },
    onStop: async () => {
      await stopBackground?.();
      await events?.close();
      redis.disconnect();
      await db.close();
    },
  });
  try {
    stopBackground = (await options.background?.(context)) ?? undefined;
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return { deps, context, httpPort: handle.httpPort!, grpcPort: handle.grpcPort!, stop: handle.stop };
}
