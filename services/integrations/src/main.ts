import { backendConfigSchema, loadConfig, runMain } from '@quire/runtime';
import { startIntegrations } from './service';

runMain('integrations', () => startIntegrations(loadConfig(backendConfigSchema)));
