// First: tracing (when OTEL_* configures it) instruments the modules loaded after it.
import '@quire/telemetry';
import { backendConfigSchema, loadConfig, runMain } from '@quire/runtime';
import { startIdentity } from './service';

runMain('identity', () => startIdentity(loadConfig(backendConfigSchema)));
