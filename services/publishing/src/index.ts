export { startPublishing } from './service';
