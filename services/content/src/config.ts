import { backendConfigSchema } from '@quire/runtime';
import { z } from 'zod';

/** The content service's settings: the backend ones plus how long deleted spaces stay restorable. */
export const contentConfigSchema = backendConfigSchema.extend({
  // Spec Limits: 7 days. Shorter values exist for tests that watch a real purge.
  SPACE_RETENTION_MS: z.coerce.number().int().positive().default(7 * 24 * 3600 * 1000),
});
export type ContentConfig = z.infer<typeof contentConfigSchema>;
