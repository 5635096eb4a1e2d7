import { startBackendService, type RunningService } from '@quire/http';
import { createLogger, type Logger } from '@quire/runtime';
import type { IntegrationsConfig } from './config';
import { modelsOf, registerModels } from './db/models';
import type { IntegrationsContext } from './domain/context';
import { integrationsRoutes } from './http';

/** Starts the integrations service (REST, event intake and delivery) against its own database. */
export function startIntegrations(
  config: IntegrationsConfig,
  options: { handleSignals?: boolean; logger?: Logger } = {},
): Promise<RunningService<IntegrationsConfig, IntegrationsContext>> {
  return startBackendService({
    name: 'integrations',
    config,
    models: registerModels,
    context: (deps): IntegrationsContext => ({ ...deps, models: modelsOf(deps.db) }),
    routes: integrationsRoutes,
    handleSignals: options.handleSignals,
    logger: options.logger ?? createLogger('integrations', config.LOG_LEVEL),
  });
}
