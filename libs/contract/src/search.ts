import { z } from 'zod';
import { url } from './common';

/** OpenAPI SearchResultScore: relevance, higher is better, unbounded. */
const score = z.number().min(0);
/** Whether the result matched on the page's own fields (title, description) or on a section's content. */
const resultType = z.enum(['page', 'section']);

/** spec "Search result item" `sections[]` (OpenAPI SearchSectionResult). */
export const searchSectionResult = z
  .object({
    id: z.string(),
    title: z.string(),
    path: z.string(),
    body: z.string(),
    score,
    resultType,
    urls: z.object({ app: url }),
  })
  .meta({ id: 'SearchSectionResult' });

/** spec "Search result item" (OpenAPI SearchPageResult): a page of the space, with its matching sections. */
export const searchPageResult = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    path: z.string(),
    score,
    rank: z.number().int().min(1),
    resultType,
    sections: z.array(searchSectionResult),
    ancestors: z.array(z.object({ title: z.string() })),
    urls: z.object({ app: url }),
  })
  .meta({ id: 'SearchPageResult' });
