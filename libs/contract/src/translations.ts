import { z } from 'zod';
import { document, permissions, timestamp, urls } from './common';
import { language } from './spaces';

/*
 * spec "Translation" (GitBook's Translation). The languages are the space `language` enum:
 * GitBook's TranslationLanguage is the same list.
 */

/**
 * GitBook's TranslationStatus (`pending`, `running`, `completed`) plus `failed`: GitBook has no
 * way to tell a run that failed from one that completed, and a client must see it (the reason is
 * in `failure`, Quire's own field).
 */
export const translationStatus = z.enum(['pending', 'running', 'completed', 'failed']).meta({ id: 'TranslationStatus' });

/** GitBook's TranslationSource: the space translated and the language it is written in. */
export const translationSource = z.object({ space: z.string(), language }).meta({ id: 'TranslationSource' });

/** GitBook's TranslationResult: the target space, the revision the latest run made, its language. */
export const translationResult = z.object({ space: z.string(), revision: z.string(), language }).meta({ id: 'TranslationResult' });

const count = z.number().int().min(0);

/**
 * spec "Translation". `stats` durations are in seconds (GitBook), pages and words are those
 * actually translated. `result` appears once a run made the target space. `failure` (Quire's
 * own) says why the latest run failed, while `status` is `failed`.
 */
export const translation = z
  .object({
    object: z.literal('translation'),
    id: z.string(),
    status: translationStatus,
    source: translationSource,
    language,
    instructions: document,
    result: translationResult.optional(),
    failure: z.object({ reason: z.string() }).optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
    stats: z.object({
      runs: count,
      totalWords: count,
      totalPages: count,
      totalDuration: count,
      latestRunDuration: count,
      latestPages: count,
      latestWords: count,
    }),
    permissions: permissions('view', 'edit'),
    urls: urls(['location']),
  })
  .meta({ id: 'Translation' });
