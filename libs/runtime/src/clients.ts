import { content, identity, insights, integrations, publishing } from '@quire/proto';
import type { BaseConfig } from './config';
import { createGrpcClient } from './grpc';

const definitions = {
  identity: identity.IdentityServiceDefinition,
  content: content.ContentServiceDefinition,
  publishing: publishing.PublishingServiceDefinition,
  integrations: integrations.IntegrationsServiceDefinition,
  insights: insights.InsightsServiceDefinition,
};
type Definitions = typeof definitions;
export type ServiceClients = { [K in keyof Definitions]: ReturnType<typeof createGrpcClient<Definitions[K]>> };

/**
 * gRPC connections to the other services (raw nice-grpc clients), created on first use from
 * `<SERVICE>_GRPC_ADDR` (a missing address is a configuration error naming the variable).
 * Callers never use them directly: libs/http's clientsOf(ctx) types them (batches split by
 * MAX_GRPC_BATCH, errors as ServiceError, REST objects parsed with the contract's schemas).
 */
export function createServiceClients(config: BaseConfig, caller: string): ServiceClients {
  const made: Partial<ServiceClients> = {};
  const clients = {} as ServiceClients;
  for (const name of Object.keys(definitions) as Array<keyof Definitions>) {
    Object.defineProperty(clients, name, {
      enumerable: true,
      get() {
        if (!made[name]) {
          const variable = `${name.toUpperCase()}_GRPC_ADDR` as const;
          const address = config[variable as keyof BaseConfig] as string | undefined;
          if (!address) throw new Error(`invalid configuration: ${variable} is required`);
          made[name] = createGrpcClient(definitions[name] as never, {
            address,
            secret: config.INTERNAL_HMAC_SECRET,
            caller,
            deadlineMs: config.GRPC_DEADLINE_MS,
          }) as never;
        }
        return made[name];
      },
    });
  }
  return clients;
}
