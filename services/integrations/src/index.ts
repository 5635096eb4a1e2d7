export { startIntegrations } from './service';
export { integrationsRoutes } from './http';
export { integrationsConfigSchema } from './config';
export { measureScriptRuns } from './runtime/measure';
