// First: tracing (when OTEL_* configures it) instruments the modules loaded after it.
import '@quire/telemetry';
import { loadConfig, runMain } from '@quire/runtime';
import { insightsConfigSchema } from './kernel';
import { startInsights } from './service';

runMain('insights', () => startInsights(loadConfig(insightsConfigSchema)));
