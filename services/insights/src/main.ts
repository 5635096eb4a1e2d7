import { loadConfig, runMain } from '@quire/runtime';
import { insightsConfigSchema } from './kernel';
import { startInsights } from './service';

runMain('insights', () => startInsights(loadConfig(insightsConfigSchema)));
