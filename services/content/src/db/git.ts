import type { ModelDefinitions } from '@quire/runtime';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface GitSyncModels {}

export const gitModelDefinitions: ModelDefinitions<GitSyncModels> = {};
