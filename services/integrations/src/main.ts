import { loadConfig, runMain } from '@quire/runtime';
import { integrationsConfigSchema } from './config';
import { startIntegrations } from './service';

runMain('integrations', () => startIntegrations(loadConfig(integrationsConfigSchema)));
