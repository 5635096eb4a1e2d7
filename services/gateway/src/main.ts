import { loadConfig, runMain } from '@quire/runtime';
import { gatewayConfigSchema } from './config';
import { startGateway } from './service';

runMain('gateway', () => startGateway(loadConfig(gatewayConfigSchema)));
