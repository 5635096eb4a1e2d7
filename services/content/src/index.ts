export { startContent } from './service';
export { contentRoutes } from './http/routes';
export { contentConfigSchema } from './config';
