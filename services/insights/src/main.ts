import { loadConfig, runMain } from '@quire/runtime';
import { insightsConfigSchema } from './config';
import { startInsights } from './service';

runMain('insights', () => startInsights(loadConfig(insightsConfigSchema)));
