import { backendConfigSchema, loadConfig, runMain } from '@quire/runtime';
import { startIdentity } from './service';

runMain('identity', () => startIdentity(loadConfig(backendConfigSchema)));
