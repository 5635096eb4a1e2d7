export { startIntegrations } from './service';
