import { language } from '@quire/contract';
import { booleanQuery, listQuerySchema, spaceMergeRulesSchema, idSchema } from '@quire/http';
import { ROLES } from '@quire/runtime';
import { z } from 'zod';

/** Request schemas of the spaces and collections routes (OpenAPI shapes, spec Limits). */

const id = idSchema;
const role = z.enum(ROLES);
/** OpenAPI DefaultLevel: a role, null (guest) or 'inherit'. */
const defaultLevel = z.union([role, z.literal('inherit')]).nullable();
const visibility = z.enum(['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private']);
const editMode = z.enum(['live', 'locked']);
const emoji = z.string().max(50);
const spaceTitle = z.string().max(50);

export const getSpaceQuery = z.object({ shareKey: z.string().max(512).optional() });
export const listCollectionsQuery = listQuerySchema.extend({ nested: booleanQuery.optional() });

/** OpenAPI CreateSpace (template/computed sources are not supported and are ignored). */
export const createSpaceBody = z.object({
  title: spaceTitle.optional(),
  emoji: emoji.optional(),
  parent: id.optional(),
  visibility: visibility.optional(),
  language: language.optional(),
  editMode: editMode.optional(),
});

export const updateSpaceBody = z.object({
  title: spaceTitle.optional(),
  emoji: emoji.nullable().optional(),
  editMode: editMode.optional(),
  defaultLevel: defaultLevel.optional(),
  language: language.nullable().optional(),
  mergeRules: spaceMergeRulesSchema.optional(),
  visibility: visibility.optional(),
});

const pointer = z.discriminatedUnion('type', [z.object({ type: z.literal('space'), space: id }), z.object({ type: z.literal('collection'), collection: id })]);
/** OpenAPI ContentPosition: before or after one sibling space or collection. */
const position = z
  .object({ before: pointer.optional(), after: pointer.optional() })
  .refine((p) => Boolean(p.before) !== Boolean(p.after), { message: 'give exactly one of before or after' });

/** Move bodies (minProperties 1): a parent (collection id, or null for the root) and/or a position. */
export const moveBody = z
  .object({ parent: id.nullable().optional(), position: position.optional() })
  .refine((b) => b.parent !== undefined || b.position !== undefined, { message: 'give parent or position' });

export const transferBody = z.object({ organization: id });

export const createCollectionBody = z.object({
  title: z.string().max(50).optional(),
  description: z.string().max(100).optional(),
  parent: id.optional(),
});

export const updateCollectionBody = z.object({
  title: z.string().max(50).optional(),
  description: z.string().max(100).nullable().optional(),
  defaultLevel: defaultLevel.optional(),
});

/** CreateSpace over gRPC (a service creating a space): the generated message's field names; '' = not given. */
export const serviceSpaceRequest = z.object({
  organizationId: id,
  title: spaceTitle,
  emoji,
  language: z.union([z.literal(''), language]),
  createdBy: id,
  parentId: z.union([z.literal(''), id]),
  copyRevisionId: z.union([z.literal(''), id]),
  idempotencyKey: z.string().min(1, 'required').max(512),
});
