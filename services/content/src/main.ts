// First: tracing (when OTEL_* configures it) instruments the modules loaded after it.
import '@quire/telemetry';
import { loadConfig, runMain } from '@quire/runtime';
import { contentConfigSchema } from './config';
import { startContent } from './service';

runMain('content', () => startContent(loadConfig(contentConfigSchema)));
