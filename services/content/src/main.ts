import { loadConfig, runMain } from '@quire/runtime';
import { contentConfigSchema } from './config';
import { startContent } from './service';

runMain('content', () => startContent(loadConfig(contentConfigSchema)));
