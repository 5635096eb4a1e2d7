import type { Express } from 'express';
import {
  connectDatabase,
  createGrpcServer,
  createLogger,
  createRedis,
  runService,
  type BackendConfig,
  type Database,
  type GrpcServerHandle,
  type Logger,
  type RedisClient,
} from '@quire/runtime';
import { createServiceApp, finishServiceApp } from './app';

export interface ServiceDeps<C extends BackendConfig> {
  name: string;
  config: C;
  logger: Logger;
  db: Database;
  redis: RedisClient;
}

export interface RunningService<C extends BackendConfig> {
  deps: ServiceDeps<C>;
  httpPort: number;
  grpcPort: number;
  stop(): Promise<void>;
}

/**
 * Boots one backend service the same way for all of them: its own database with its
 * indexes, Redis, the REST app (health, readiness, conventions) and the gRPC server.
 */
export async function startBackendService<C extends BackendConfig, X = ServiceDeps<C>>(options: {
  name: string;
  config: C;
  models: (db: Database) => void;
  /** Builds what routes and gRPC methods work with (the domain context), once. */
  context?: (deps: ServiceDeps<C>) => X;
  routes?: (app: Express, context: X) => void;
  grpc?: (server: GrpcServerHandle, context: X) => void;
  onStop?: () => Promise<void>;
  handleSignals?: boolean;
  logger?: Logger;
}): Promise<RunningService<C>> {
  const { name, config } = options;
  const logger = options.logger ?? createLogger(name, config.LOG_LEVEL);
  const db = await connectDatabase(name, config, logger, options.models);
  const redis = createRedis(config, logger);
  const deps: ServiceDeps<C> = { name, config, logger, db, redis };
  const context = options.context ? options.context(deps) : (deps as X);

  const ready = async () => db.readyState === 1 && (await redis.ping()) === 'PONG';
  const app = createServiceApp({ logger, secret: config.INTERNAL_HMAC_SECRET, ready });
  options.routes?.(app, context);
  finishServiceApp(app, logger);

  const grpc = createGrpcServer({ host: config.BIND_HOST, port: config.GRPC_PORT, secret: config.INTERNAL_HMAC_SECRET, logger });
  options.grpc?.(grpc, context);
  // The gRPC health status (what the gateway's /readyz asks) follows the datastores.
  const unhealthy = () => grpc.health.setStatus('unhealthy');
  const recheck = () => void ready().then((ok) => grpc.health.setStatus(ok ? 'healthy' : 'unhealthy'), unhealthy);
  db.on('disconnected', unhealthy);
  db.on('reconnected', recheck);
  redis.on('end', unhealthy);
  redis.on('error', unhealthy);
  redis.on('ready', recheck);

  const handle = await runService({
    name,
    logger,
    host: config.BIND_HOST,
    httpPort: config.HTTP_PORT,
    httpHandler: app,
    grpc,
    handleSignals: options.handleSignals,
    onStop: async () => {
      await options.onStop?.();
      redis.disconnect();
      await db.close();
    },
  });
  return { deps, httpPort: handle.httpPort!, grpcPort: handle.grpcPort!, stop: handle.stop };
}
