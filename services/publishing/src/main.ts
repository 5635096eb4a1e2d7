// First: tracing (when OTEL_* configures it) instruments the modules loaded after it.
import '@quire/telemetry';
import { loadConfig, runMain } from '@quire/runtime';
import { publishingConfigSchema } from './config';
import { startPublishing } from './service';

runMain('publishing', () => startPublishing(loadConfig(publishingConfigSchema)));
