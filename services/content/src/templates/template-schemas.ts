import { idSchema } from '@quire/http';
import { z } from 'zod';

/** Request schemas of templates: the template a change request starts from, and one applied to content. */

const id = idSchema;

/*
 * Content references (spec Conventions, OpenAPI ContentRef). The kinds the templates read
 * are checked in full; the other GitBook kinds are accepted as they come.
 */
const contentRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('openapi'), spec: z.string().min(1).max(100) }).strict(),
  z.object({ kind: z.literal('file'), file: id }).strict(),
  z.object({ kind: z.enum(['url', 'page', 'anchor', 'user', 'collection', 'space', 'reusable-content', 'tag']) }).passthrough(),
]);

/**
 * OpenAPI ApplySpaceTemplate: `params.contentRefs` is a map of name → ContentRef (the spec's
 * form); a plain array of refs is accepted too.
 */
export const spaceTemplate = z.object({
  id: z.string().min(1).max(100),
  params: z
    .object({
      // An array becomes a map keyed by index, so errors still name `contentRefs.<index>`.
      contentRefs: z
        .preprocess(
          (refs) => (Array.isArray(refs) ? Object.fromEntries(refs.map((ref, index) => [String(index), ref])) : refs),
          z.record(z.string().min(1).max(100), contentRef),
        )
        .refine((refs) => Object.keys(refs).length <= 20, 'at most 20 content references')
        .optional(),
    })
    .passthrough()
    .optional(),
});

/** POST /v1/spaces/{spaceId}/content/template (OpenAPI applyTemplateToSpace): optionally for a change request (id or number). */
export const applyTemplateBody = spaceTemplate.extend({ changeRequestId: id.optional() }).strict();
