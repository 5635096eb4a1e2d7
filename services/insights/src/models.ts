import { defineModels } from '@quire/runtime';
import type { InsightsModels } from './kernel';
import { conversationModelDefinitions } from './conversations';
import { translationModelDefinitions } from './translations';

/** Every module's models, registered on the insights database. */
const insightsModels = defineModels<InsightsModels>({
  ...conversationModelDefinitions,
  ...translationModelDefinitions,
});

export const registerModels = insightsModels.register;
export const modelsOf = insightsModels.of;
