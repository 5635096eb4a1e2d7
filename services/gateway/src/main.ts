// First: tracing (when OTEL_* configures it) instruments the modules loaded after it.
import '@quire/telemetry';
import { loadConfig, runMain } from '@quire/runtime';
import { gatewayConfigSchema } from './config';
import { startGateway } from './service';

runMain('gateway', () => startGateway(loadConfig(gatewayConfigSchema)));
