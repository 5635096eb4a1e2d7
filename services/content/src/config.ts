import { backendConfigSchema } from '@quire/runtime';
import type { z } from 'zod';
import { lockConfigSchema } from './kernel';
import { gitConfigSchema } from './git';
import { searchConfigSchema } from './search';
import { spaceLifecycleConfigSchema } from './structure';

/**
 * The content service's settings: the backend ones plus each module's own (how long
 * deleted spaces stay restorable, how long a write waits for a lock, Git sync, search).
 */
export const contentConfigSchema = backendConfigSchema.extend({
  ...spaceLifecycleConfigSchema.shape,
  ...lockConfigSchema.shape,
  ...gitConfigSchema.shape,
  ...searchConfigSchema.shape,
});
export type ContentConfig = z.infer<typeof contentConfigSchema>;
