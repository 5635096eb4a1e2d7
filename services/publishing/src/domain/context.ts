import type { EventBus } from '@quire/async';
import type { Logger, RedisClient, ServiceClients } from '@quire/runtime';
import type { PublishingConfig } from '../config';
import type { PublishingModels } from '../db/models';

/**
 * The service's in-process caches, by name (ctx.caches). Open on purpose: published/ declares
 * its caches (declareCache) and adds them here by declaration merging; the service hands every
 * declaration to startBackendService, which makes them per service instance within CACHE_BUDGET_MB.
 */
// Empty here: the domain keeps no cache of its own.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PublishingCaches {}

/** What publishing's domain functions work with. */
export interface PublishingContext {
  models: PublishingModels;
  caches: PublishingCaches;
  redis: RedisClient;
  config: PublishingConfig;
  logger: Logger;
  /** gRPC connections to the other services, used through clientsOf(ctx). */
  clients: ServiceClients;
  /** The cross-service event stream (content's space events). */
  events: EventBus;
}
