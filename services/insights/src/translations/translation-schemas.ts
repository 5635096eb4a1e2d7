import { z } from 'zod';
import { language } from '@quire/contract';
import { idSchema, listQuerySchema, richTextDocumentSchema } from '@quire/http';

/** Request shapes of the translation routes (spec "Translations"; GitBook's bodies). */

export const organizationParams = z.object({ organizationId: idSchema });
export const translationParams = z.object({ organizationId: idSchema, translationId: idSchema });
export const translationListQuery = listQuerySchema;

/** Instructions are guidance for the provider: a few paragraphs, not a book. */
export const MAX_INSTRUCTIONS_JSON = 100_000;

/** The instructions: a rich-text document. */
export const instructionsDocument = richTextDocumentSchema(MAX_INSTRUCTIONS_JSON);
export type InstructionsDocument = z.infer<typeof instructionsDocument>;

/** The instructions of a translation created without any. */
export const EMPTY_INSTRUCTIONS: InstructionsDocument = { object: 'document', data: { schemaVersion: 1 }, nodes: [] };

/** POST /v1/orgs/{organizationId}/translations (GitBook createTranslation). */
export const createTranslationBody = z.strictObject({
  source: z.strictObject({ space: idSchema, language }),
  language,
  instructions: instructionsDocument.optional(),
});

/** PUT /v1/orgs/{organizationId}/translations/{translationId} (GitBook updateTranslation). */
export const updateTranslationBody = z.strictObject({ instructions: instructionsDocument });
