export { startPublishing } from './service';
export { publishingRoutes } from './http';
export { publishingConfigSchema, type PublishingConfig } from './config';
