import type { z } from 'zod';
import type { translation } from '@quire/contract';
import { apiUrl } from '@quire/http';
import type { InsightsConfig } from '../kernel';
import { instructionsJson, type TranslationDoc } from './translation-model';

type Translation = z.infer<typeof translation>;
type Language = Translation['language'];

/** Milliseconds as GitBook's whole seconds, rounded up (a run that happened lasted at least 1 s). */
const seconds = (ms: number) => Math.ceil(ms / 1000);

/** spec "Translation", for a caller who may view it and, when `canEdit`, edit it. */
export function presentTranslation(doc: TranslationDoc, options: { config: InsightsConfig; canEdit: boolean }): Translation {
  const { stats } = doc;
  return {
    object: 'translation',
    id: doc._id,
    status: doc.status,
    source: { space: doc.sourceSpaceId, language: doc.sourceLanguage as Language },
    language: doc.language as Language,
    instructions: instructionsJson.read(doc.instructions),
    ...(doc.targetSpaceId && doc.targetRevisionId
      ? { result: { space: doc.targetSpaceId, revision: doc.targetRevisionId, language: doc.language as Language } }
      : {}),
    ...(doc.status === 'failed' && doc.failureReason ? { failure: { reason: doc.failureReason } } : {}),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    stats: {
      runs: stats.runs,
      totalWords: stats.totalWords,
      totalPages: stats.totalPages,
      totalDuration: seconds(stats.totalDurationMs),
      latestRunDuration: seconds(stats.latestRunDurationMs),
      latestPages: stats.latestPages,
      latestWords: stats.latestWords,
    },
    permissions: { view: true, edit: options.canEdit },
    urls: { location: apiUrl(options.config.PUBLIC_BASE_URL, `/v1/orgs/${doc.organizationId}/translations/${doc._id}`) },
  };
}
