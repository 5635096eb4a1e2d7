export { startInsights, insightsRoutes } from './service';
export { insightsConfigSchema, type InsightsConfig } from './kernel';
export { labelledConversations, measureClustering, type LabelledAssignment } from './conversations';
