import type { ServiceDeps } from '@quire/http';
import type { InsightsConfig } from './config';
import type { ConversationModels } from '../conversations';
import type { TranslationModels } from '../translations';

/** Every model of the insights database (each feature module lists its own). */
export type InsightsModels = ConversationModels & TranslationModels;

/** What the insights service's functions work with. */
export interface InsightsContext extends ServiceDeps<InsightsConfig> {
  models: InsightsModels;
}
