import { listQuerySchema } from '@quire/http';
import { z } from 'zod';

/** GET /v1/spaces/{spaceId}/search: the text to look for, and the list's page size and cursor. */
export const searchQuery = listQuerySchema.extend({ query: z.string().trim().min(1).max(512) });
