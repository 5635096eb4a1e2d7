import { backendConfigSchema, loadConfig, runMain } from '@quire/runtime';
import { startPublishing } from './service';

runMain('publishing', () => startPublishing(loadConfig(backendConfigSchema)));
