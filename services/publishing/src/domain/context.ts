import type { EventBus } from '@quire/async';
import type { Logger, RedisClient, ServiceClients } from '@quire/runtime';
import type { PublishingConfig } from '../config';
import type { PublishingModels } from '../db/models';

/** What publishing's domain functions work with. */
export interface PublishingContext {
  models: PublishingModels;
  redis: RedisClient;
  config: PublishingConfig;
  logger: Logger;
  clients: ServiceClients;
  /** The cross-service event stream (content's space events). */
  events: EventBus;
}
