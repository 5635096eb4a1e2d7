import type { EventBus } from '@quire/async';
import type { Logger, MetricsRegistry, RedisClient, ServiceClients } from '@quire/runtime';
import type { IntegrationsConfig } from '../config';
import type { IntegrationsModels } from '../db/models';

/** What the integrations service's domain functions work with. */
export interface IntegrationsContext {
  models: IntegrationsModels;
  redis: RedisClient;
  config: IntegrationsConfig;
  logger: Logger;
  /** gRPC connections to the other services, used through clientsOf(ctx). */
  clients: ServiceClients;
  /** The cross-service event stream: what happens elsewhere becomes integration events. */
  events: EventBus;
  /** The process's Prometheus registry (deliveries and script runs are counted there). */
  metrics: MetricsRegistry;
}
