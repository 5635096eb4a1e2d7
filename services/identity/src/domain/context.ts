import type { EventBus } from '@quire/async';
import type { BackendConfig, Logger, RedisClient, ServiceClients } from '@quire/runtime';
import type { IdentityModels } from '../db/models';

/** What identity's domain functions work with. */
export interface IdentityContext {
  models: IdentityModels;
  redis: RedisClient;
  config: BackendConfig;
  logger: Logger;
  /** gRPC connections to the other services, used through clientsOf(ctx) (content counts and lists a member's spaces, publishing counts sites). */
  clients?: ServiceClients;
  /** The cross-service event stream (member removed, team deleted). */
  events?: EventBus;
}
