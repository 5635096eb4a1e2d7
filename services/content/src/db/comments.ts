import type { ModelDefinitions } from '@quire/runtime';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CommentModels {}

export const commentsModelDefinitions: ModelDefinitions<CommentModels> = {};
