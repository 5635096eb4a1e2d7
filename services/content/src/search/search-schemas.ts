import { listQuerySchema } from '@quire/http';
import { z } from 'zod';

/**
 * GET /v1/spaces/{spaceId}/search: the text to look for (spec Limits: at most 512 characters as
 * sent, blanks included; then trimmed, and not empty), and the list's page size and cursor.
 */
export const searchQuery = listQuerySchema.extend({ query: z.string().max(512).trim().min(1) });
