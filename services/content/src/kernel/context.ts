import type { EventBus } from '@quire/async';
import type { BackendConfig, Logger, RedisClient, ServiceClients } from '@quire/runtime';
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
