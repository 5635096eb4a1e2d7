import type { EventBus } from '@quire/async';
import type { BackendConfig, Logger, MetricsRegistry, RedisClient, ServiceClients } from '@quire/runtime';
import type { Model } from 'mongoose';
import type { CollectionDoc, SpaceDoc } from './structure-store';

/**
 * Every model of the content database, by name. Open on purpose: the kernel declares its
 * own here and each module's store adds its models by declaration merging
 * (`declare module '../kernel' { interface ContentModels { … } }`), so the kernel names no
 * module above it. models.ts (the composition root) registers every module's schemas. A
 * module uses its own models and those of the modules below it, never one above.
 */
export interface ContentModels {
  Space: Model<SpaceDoc>;
  Collection: Model<CollectionDoc>;
}

/**
 * The service's in-process caches, by name (ctx.caches). Open on purpose, as ContentModels: each
 * module declares its caches (declareCache) and adds them here by declaration merging; the
 * composition root (service.ts) hands every declaration to startBackendService, which makes them
 * per service instance within CACHE_BUDGET_MB (a declared cache missing there does not compile).
 */
// Empty here: the kernel keeps no cache of its own, the modules add theirs.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ContentCaches {}

/** What content's domain functions work with. */
export interface ContentContext {
  models: ContentModels;
  caches: ContentCaches;
  redis: RedisClient;
  config: BackendConfig;
  logger: Logger;
  /** gRPC connections to the other services, used through clientsOf(ctx) (identity for memberships and users, …). */
  clients: ServiceClients;
  /** The cross-service domain event stream (its events: EVENTS in @quire/async). */
  events: EventBus;
  /** The process's Prometheus registry (its counters: counterOf). */
  metrics: MetricsRegistry;
}
