/*
 * Translations of a space into other languages (spec "Translation", "Translations"): the
 * module's only door. A translation is created by an organization admin, and each run (a queued
 * job) translates the pages of its source space that changed into its target space, through the
 * configured provider (TRANSLATION_PROVIDER). See translation-run.ts for what a run does.
 */
export { translationModelTable as translationModelDefinitions, type TranslationModels } from './translation-model';
export { translationRoutes } from './translation-routes';
/** Starts running queued translation runs in this process; what it returns stops it. */
export { startRunWorker as startTranslationWorker } from './translation-queue';
