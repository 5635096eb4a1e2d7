import { backendConfigSchema, loadConfig, runMain } from '@quire/runtime';
import { startContent } from './service';

runMain('content', () => startContent(loadConfig(backendConfigSchema)));
