import { pageLayout } from '@quire/contract';
import { booleanQuery, httpUrlSchema, listQuerySchema, idSchema, richTextDocumentSchema } from '@quire/http';
import { z } from 'zod';
import { MAX_VARIABLE_NAME, MAX_VARIABLE_VALUE, MAX_VARIABLES, pageSlug, VARIABLE_NAME, VARIABLE_NAME_RULE } from '../revisions';
import { spaceTemplate } from '../templates';
import { CHANGE_REQUEST_STATUSES } from './change-requests';

/** Request shapes of the change request routes (spec "Change requests", OpenAPI bodies). */

const id = idSchema;

const status = z.enum(CHANGE_REQUEST_STATUSES);
const listFilters = {
  creator: id.optional(),
  contributor: id.optional(),
  requestedReviewer: id.optional(),
  conversationsIssuesCluster: id.optional(),
  orderBy: z.enum(['updatedAt', 'createdAt']).optional(),
};

/** GET /v1/spaces/{spaceId}/change-requests: one status (default open). */
export const changeRequestListQuery = listQuerySchema.extend({ status: status.default('open'), ...listFilters });

/** GET /v1/orgs/{organizationId}/change-requests: statuses as an array (repeated `status`, default [open]), optionally one space. */
export const organizationChangeRequestListQuery = listQuerySchema.extend({
  status: z
    .union([status, z.array(status).min(1).max(CHANGE_REQUEST_STATUSES.length)])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .default(['open']),
  space: id.optional(),
  ...listFilters,
});

// Other properties are allowed (OpenAPI additionalProperties).
export const createChangeRequestBody = z
  .object({
    subject: z.string().max(100).optional(),
    status: z.enum(['draft', 'open']).optional(),
    template: spaceTemplate.optional(),
    /** The conversation insights cluster the change request addresses (a cluster of the space's organization). */
    conversationsIssuesCluster: id.optional(),
  })
  .passthrough();

/** A change request's description. */
export const richTextDocument = richTextDocumentSchema(200_000);

export const patchChangeRequestBody = z
  .object({
    subject: z.string().max(100).optional(),
    description: richTextDocument.optional(),
    status: z.enum(CHANGE_REQUEST_STATUSES).optional(),
    /** Links the change request to a conversation insights cluster of the organization; null unlinks it. */
    conversationsIssuesCluster: id.nullable().optional(),
  })
  .strict();

/** An image of a page's cover: a file of the content (by id, or by the ref of a file the same batch inserts) or an http(s) address. */
const coverImage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), file: z.string().min(1).max(100) }).strict(),
  z.object({ kind: z.literal('url'), url: httpUrlSchema }).strict(),
]);

const pageFields = {
  title: z.string().trim().min(1).max(100),
  slug: pageSlug,
  markdown: z.string().max(1_000_000),
  emoji: z.string().max(50),
  description: z.string().max(500),
  hidden: z.boolean(),
  noIndex: z.boolean(),
  noRobotsIndex: z.boolean(),
  /**
   * GitBook's layout options, any of them (the others are kept). update_page only: a change to
   * more than one of the changes' shapes reads as breaking to the API document's check, so a
   * new page is laid out by an update_page naming its insert's ref. Not the cover's mask: Git
   * sync has no front matter for it, and what an export cannot write would be lost on the way back.
   */
  layout: pageLayout.omit({ coverMask: true }).partial().strict(),
  /**
   * GitBook's RevisionPageDocumentCover as a change sets it: its image (and `refDark`, the one
   * dark themes show) and its vertical position; null removes it.
   */
  cover: z
    .object({ ref: coverImage, refDark: coverImage.optional(), yPos: z.number().min(-10_000).max(10_000).default(0) })
    .strict()
    .nullable(),
  at: z.number().int().min(0),
};

/* Variables (page and space): GitBook's VariableValue is a string, a number or a boolean; values are kept as strings. */
const variableName = z.string().max(MAX_VARIABLE_NAME).regex(VARIABLE_NAME);
const variableValue = z
  .union([z.string(), z.number(), z.boolean()], { error: 'must be a string, a number or a boolean' })
  .transform(String)
  .refine((value) => value.length <= MAX_VARIABLE_VALUE, `at most ${MAX_VARIABLE_VALUE} characters`);
const variableKeyError = {
  error: (issue: { code?: string }) => (issue.code === 'invalid_key' ? `${VARIABLE_NAME_RULE} (at most ${MAX_VARIABLE_NAME} characters)` : undefined),
};
const tooMany = (map: Record<string, unknown>) => Object.keys(map).length <= MAX_VARIABLES;
// zod's records skip a `__proto__` key without a word: it is refused here, named, like the other reserved names.
const refuseProtoKey = <T extends z.ZodType>(schema: T) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
        ctx.addIssue({ code: 'custom', path: ['__proto__'], message: `${VARIABLE_NAME_RULE} (at most ${MAX_VARIABLE_NAME} characters)` });
      }
    })
    .pipe(schema);
const pageVariables = refuseProtoKey(z.record(variableName, variableValue, variableKeyError).refine(tooMany, `at most ${MAX_VARIABLES} variables`));
const variablesUpdate = refuseProtoKey(
  z.record(variableName, variableValue.nullable(), variableKeyError).refine(tooMany, `at most ${MAX_VARIABLES} variables`),
);

const insertPage = z
  .object({
    type: z.literal('insert_page'),
    ref: z.string().min(1).max(100).optional(),
    title: pageFields.title,
    slug: pageFields.slug.optional(),
    markdown: pageFields.markdown.optional(),
    emoji: pageFields.emoji.optional(),
    description: pageFields.description.optional(),
    hidden: pageFields.hidden.optional(),
    noIndex: pageFields.noIndex.optional(),
    noRobotsIndex: pageFields.noRobotsIndex.optional(),
    into: id.optional(),
    at: pageFields.at.optional(),
    variables: pageVariables.optional(),
  })
  .strict();
const updatePage = z
  .object({
    type: z.literal('update_page'),
    page: id,
    title: pageFields.title.optional(),
    slug: pageFields.slug.optional(),
    markdown: pageFields.markdown.optional(),
    emoji: pageFields.emoji.optional(),
    description: pageFields.description.optional(),
    hidden: pageFields.hidden.optional(),
    noIndex: pageFields.noIndex.optional(),
    noRobotsIndex: pageFields.noRobotsIndex.optional(),
    layout: pageFields.layout.optional(),
    cover: pageFields.cover.optional(),
    into: id.nullable().optional(),
    at: pageFields.at.optional(),
    variables: pageVariables.optional(),
  })
  .strict();
const deletePage = z.object({ type: z.literal('delete_page'), page: id }).strict();
/** Quire's own change: the revision's (space) variables; null removes a name, `replace` drops the ones not listed. */
const updateVariables = z.object({ type: z.literal('update_variables'), variables: variablesUpdate, replace: z.boolean().optional() }).strict();
const insertFiles = z
  .object({
    type: z.literal('insert_files'),
    files: z
      .array(
        z
          .object({
            ref: z.string().min(1).max(100).optional(),
            name: z
              .string()
              .min(1)
              .max(255)
              .regex(/^[^/\\]+$/, 'must not contain slashes'),
            contentType: z
              .string()
              .max(255)
              .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type like image/png'),
            data: z.base64('must be base64').max(7_000_000),
          })
          .strict(),
      )
      .min(1)
      .max(20),
  })
  .strict();

/** The page title a markdown body gives itself: its leading `# heading`. */
function leadingHeading(markdown: string): string | undefined {
  const match = /^\s*#\s+(.+?)\s*#*\s*$/m.exec(markdown.split(/\n\s*\n/, 1)[0] ?? '');
  return match ? match[1].slice(0, 100) : undefined;
}

/**
 * The GitBook document's form of a change (OpenAPI ChangeRequestContentChange:
 * `operation`, `document: {markdown}`, files' `base64`, an insert's title defaulting to
 * the markdown's leading heading) is rewritten into the short form (`type`, `markdown`,
 * `data`) that the schemas below validate; both forms are accepted. What neither form
 * supports (a JSON `document`, files by `url`) is left in place and rejected, named.
 */
function normalizeChange(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const { operation, document, ...change } = raw as Record<string, unknown>;
  const gitbookForm = operation !== undefined && change.type === undefined;
  if (gitbookForm) change.type = operation;
  else if (operation !== undefined) change.operation = operation;
  if (document !== undefined) {
    const markdown = document && typeof document === 'object' ? (document as Record<string, unknown>).markdown : undefined;
    const empty = document && typeof document === 'object' && Object.keys(document).length === 0;
    if (typeof markdown === 'string' && change.markdown === undefined) change.markdown = markdown;
    else if (!empty) change.document = document;
  }
  if (Array.isArray(change.files)) {
    change.files = change.files.map((file: unknown) => {
      if (!file || typeof file !== 'object') return file;
      const { base64, ...rest } = file as Record<string, unknown>;
      return base64 !== undefined && rest.data === undefined ? { ...rest, data: base64 } : file;
    });
  }
  if (gitbookForm && change.type === 'insert_page' && change.title === undefined) {
    change.title = (typeof change.markdown === 'string' && leadingHeading(change.markdown)) || 'Untitled';
  }
  return change;
}

const contentChange = z.preprocess(normalizeChange, z.discriminatedUnion('type', [insertPage, updatePage, deletePage, insertFiles, updateVariables]));

export const contentChangesBody = z
  .object({
    changes: z.array(contentChange).min(1).max(50),
  })
  .strict();

/** `compat` (default true): answer the ChangeRequest; false: OpenAPI ChangeRequestContentUpdate. */
export const contentChangesQuery = z.object({ compat: booleanQuery.optional() });

export const reviewBody = z.object({ status: z.enum(['approved', 'changes-requested']), comment: z.unknown().optional() }).strict();

export const requestedReviewersBody = z
  .object({ users: z.array(id).min(1).max(100), subject: z.string().max(100).optional(), description: richTextDocument.optional() })
  .strict();

export const pdfQuery = z.object({
  only: z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .transform((value) => value === 'true' || value === '1')
    .optional(),
  page: id.optional(),
});
