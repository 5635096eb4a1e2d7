export { startInsights } from './service';
export { insightsConfigSchema, type InsightsConfig } from './config';
