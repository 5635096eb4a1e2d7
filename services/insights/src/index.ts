export { startInsights } from './service';
