export { startPublishing } from './service';
export { publishingConfigSchema, type PublishingConfig } from './config';
