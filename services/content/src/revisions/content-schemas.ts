import { pageLayout } from '@quire/contract';
import { booleanQuery, idSchema, listQuerySchema } from '@quire/http';
import { z } from 'zod';
import { spaceParams } from '../kernel';

/** Request schemas of the content reads (a space's content, a change request's, a revision). */

// metadata=false omits git metadata; computed=false presents computed pages without generating them.
export const revisionQuery = z.object({ metadata: booleanQuery.optional(), computed: booleanQuery.optional() });
// format: markdown (default) or document (a paragraph-level JSON document built from the markdown).
export const pageQuery = revisionQuery.extend({
  format: z.enum(['markdown', 'document']).optional(),
  evaluated: z.union([booleanQuery, z.literal('deterministic-only')]).optional(),
});
export type PageQuery = z.infer<typeof pageQuery>;
// Files are never computed: `computed` is accepted and changes nothing.
export const fileListQuery = listQuerySchema.extend(revisionQuery.shape);
export const linksQuery = listQuerySchema.extend({ status: z.enum(['ok', 'broken', 'in-app']).optional() });
export type LinksQuery = z.infer<typeof linksQuery>;

/** A revision of a space: /v1/spaces/{spaceId}/revisions/{revisionId}. */
export const revisionParams = spaceParams.extend({ revisionId: idSchema });

/* Path parameters under a content source's prefix (added to the source's own). */
export const fileParam = { fileId: idSchema };
export const pageParam = { pageId: idSchema };
/** `…/path/*pagePath`: the wildcard's segments as one path, without leading or trailing slashes. */
export const pagePathParam = {
  pagePath: z.unknown().transform((raw) => (Array.isArray(raw) ? raw.join('/') : String(raw)).replace(/^\/+|\/+$/g, '')),
};

/* WriteSpacePages (gRPC, another service writing a space's page tree): the generated message's field names. */

/** A page slug, wherever one is written (change request content, WriteSpacePages). */
export const pageSlug = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, dots, dashes or underscores')
  .max(100);

const pageWrite = z
  .object({
    id: idSchema,
    parentId: z.string(),
    hasContent: z.boolean(),
    title: z.string(),
    description: z.string(),
    body: z.string(),
    slug: z.union([z.literal(''), pageSlug]),
    emoji: z.string().max(50),
    hidden: z.boolean(),
    // Optional in the message: absent keeps the page's flags (a new page: false).
    noIndex: z.boolean().optional(),
    noRobotsIndex: z.boolean().optional(),
    // The whole layout, every field given; absent keeps the page's (a new page: the defaults).
    layout: pageLayout.optional(),
  })
  .refine((page) => !page.hasContent || page.title.trim() !== '', { path: ['title'], message: 'required for a page with content' });

export const writeSpacePagesRequest = z.object({
  spaceId: idSchema,
  expectedRevisionId: idSchema,
  userId: idSchema,
  pages: z.array(pageWrite),
});
