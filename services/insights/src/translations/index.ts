/*
 * Translations of a space into other languages. (Stub: the module's door; its implementation
 * arrives with issue 14.)
 */
import type { Route } from '@quire/http';
import type { ModelDefinitions } from '@quire/runtime';
import type { InsightsContext } from '../context';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type TranslationModels = {};
export const translationModelDefinitions: ModelDefinitions<TranslationModels> = {};
export function translationRoutes(_ctx: InsightsContext): Route[] {
  return [];
}
export async function startTranslationWorker(_ctx: InsightsContext): Promise<() => Promise<void>> {
  return async () => {};
}
