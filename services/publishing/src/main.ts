import { loadConfig, runMain } from '@quire/runtime';
import { publishingConfigSchema } from './config';
import { startPublishing } from './service';

runMain('publishing', () => startPublishing(loadConfig(publishingConfigSchema)));
