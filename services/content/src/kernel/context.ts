import type { EventBus } from '@quire/async';
import type { BackendConfig, Logger, RedisClient, ServiceClients } from '@quire/runtime';
import type { ContentModels } from '../db/models';

/** What content's domain functions work with. */
export interface ContentContext {
  models: ContentModels;
  redis: RedisClient;
  config: BackendConfig;
  logger: Logger;
  /** gRPC clients of the other services (identity for memberships and users, …). */
  clients: ServiceClients;
  /** The cross-service domain event stream (EVENT_TYPES in @quire/async). */
  events: EventBus;
}
