export { startContent } from './service';
