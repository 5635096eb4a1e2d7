import { startBackendService, type RunningService } from '@quire/http';
import type { BackendConfig, Logger } from '@quire/runtime';

/**
 * Starts the content service. So far it boots, owns its database and answers health checks;
 * its REST routes and gRPC methods arrive with their issues.
 */
export function startContent(config: BackendConfig, options: { handleSignals?: boolean; logger?: Logger } = {}): Promise<RunningService<BackendConfig>> {
  return startBackendService({ name: 'content', config, models: () => {}, ...options });
}
