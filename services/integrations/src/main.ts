// First: tracing (when OTEL_* configures it) instruments the modules loaded after it.
import '@quire/telemetry';
import { loadConfig, runMain } from '@quire/runtime';
import { integrationsConfigSchema } from './config';
import { startIntegrations } from './service';

runMain('integrations', () => startIntegrations(loadConfig(integrationsConfigSchema)));
