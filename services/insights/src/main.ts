import { backendConfigSchema, loadConfig, runMain } from '@quire/runtime';
import { startInsights } from './service';

runMain('insights', () => startInsights(loadConfig(backendConfigSchema)));
