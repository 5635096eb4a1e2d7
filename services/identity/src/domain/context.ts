import type { BackendConfig, Logger, RedisClient } from '@quire/runtime';
import type { IdentityModels } from '../db/models';

/** What identity's domain functions work with. */
export interface IdentityContext {
  models: IdentityModels;
  redis: RedisClient;
  config: BackendConfig;
  logger: Logger;
}
