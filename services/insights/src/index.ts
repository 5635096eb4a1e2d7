export { startInsights, insightsRoutes } from './service';
export { insightsConfigSchema, type InsightsConfig } from './config';
export { labelledConversations, measureClustering, type LabelledAssignment } from './conversations';
