import { startBackendService, type RunningService } from '@quire/http';
import type { Logger } from '@quire/runtime';
import type { IntegrationsConfig } from './config';
import { modelsOf, registerModels } from './db/models';
import type { IntegrationsContext } from './domain/context';
import { startDeliveryWorker } from './domain/delivery';
import { subscribeToStreamEvents } from './domain/event-intake';
import { closeScriptRuns } from './domain/script-runs';
import { integrationsRoutes } from './http';

/** Starts the integrations service (REST, event intake and delivery) against its own database. */
export function startIntegrations(
  config: IntegrationsConfig,
  options: { handleSignals?: boolean; logger?: Logger; background?: boolean } = {},
): Promise<RunningService<IntegrationsConfig, IntegrationsContext>> {
  return startBackendService({
    name: 'integrations',
    config,
    models: registerModels,
    context: (deps): IntegrationsContext => ({ ...deps, models: modelsOf(deps.db) }),
    routes: integrationsRoutes,
    // Events from the stream become integration events; the worker delivers them. The script
    // workers (started on the first run) stop last, once nothing can ask for a run.
    background: async (ctx) => {
      if (options.background === false) return () => closeScriptRuns(ctx);
      const stopWorker = await startDeliveryWorker(ctx);
      const subscription = await subscribeToStreamEvents(ctx);
      return async () => {
        await subscription.stop();
        await stopWorker();
        await closeScriptRuns(ctx);
      };
    },
    handleSignals: options.handleSignals,
    logger: options.logger,
  });
}
