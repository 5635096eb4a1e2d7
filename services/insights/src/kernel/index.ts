/** The insights kernel: the context every module works with, and the settings. Its only door. */
export type { InsightsContext, InsightsModels } from './context';
export { insightsConfigSchema, type InsightsConfig } from './config';
