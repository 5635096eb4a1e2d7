import { z } from 'zod';

/** A boolean query parameter: accepts true/false/1/0 and rejects anything else. */
/** Every resource id in a path or a body: the one id schema (ids we make are 20 characters). */
export const idSchema = z.string().min(1).max(64);

export const booleanQuery = z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).transform((value) => value === 'true' || value === '1');

/**
 * Merge rules (spec "Merge rules", OpenAPI MergeRules*). Only the rule the platform
 * enforces, `require_specific_reviewers`, is accepted: a rule nobody enforces would lie.
 */
const mergeRule = z.object({ rule: z.literal('require_specific_reviewers'), users: z.array(idSchema).min(1).max(100) }).strict();
/**
 * `requireNoNewBrokenLinks` (Quire's; GitBook has no rule like it, off unless true): a change
 * request whose revision has a broken internal link its base did not have cannot be merged. A
 * field beside the rules rather than a rule of its own: v1's callers know only the rules above.
 */
const rulesConfiguration = z.object({ type: z.literal('rules'), rules: z.array(mergeRule).max(20), requireNoNewBrokenLinks: z.boolean().optional() }).strict();
const noneConfiguration = z.object({ type: z.literal('none') }).strict();
const inheritConfiguration = z.object({ type: z.literal('inherit') }).strict();

/** An organization's own merge rules: rules, or none. */
export const standaloneMergeRulesSchema = z.discriminatedUnion('type', [rulesConfiguration, noneConfiguration]);
/** A space's merge rules: its own, or inherited from the organization. */
export const spaceMergeRulesSchema = z.discriminatedUnion('type', [inheritConfiguration, rulesConfiguration, noneConfiguration]);

/**
 * Every address a user stores (logos, sign-in fallbacks, webhooks…): absolute http(s) only,
 * so nothing we render or redirect to can run script (`javascript:`, `data:`…).
 */
export const httpUrlSchema = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname, message: 'must be an http(s) URL' }).max(2048);

/* Rich-text document (spec Conventions): blocks nest recursively; texts carry leaves. */
const leaf = z.looseObject({
  object: z.literal('leaf'),
  text: z.string().max(100_000),
  marks: z
    .array(z.looseObject({ type: z.string().max(100) }))
    .max(20)
    .optional(),
});
const text = z.looseObject({ object: z.literal('text'), leaves: z.array(leaf).max(1000) });
type RichTextNode = { object: 'block' | 'inline'; type: string; key?: string; nodes?: unknown[]; isVoid?: boolean; data?: Record<string, unknown> };
const richTextNode: z.ZodType<RichTextNode> = z.lazy(() =>
  z.looseObject({
    object: z.enum(['block', 'inline']),
    type: z.string().min(1).max(100),
    key: z.string().max(100).optional(),
    nodes: z
      .array(z.union([richTextNode, text]))
      .max(1000)
      .optional(),
    isVoid: z.boolean().optional(),
    data: z.looseObject({ align: z.string().max(20).optional() }).optional(),
  }),
) as z.ZodType<RichTextNode>;

/**
 * A rich-text document in a request body (a change request's description, a translation's
 * instructions): `{object: 'document', data: {schemaVersion, …}, nodes}` and nothing else at the
 * top (an unknown key is refused, named). A document without `schemaVersion` is of the latest
 * version (GitBook), which Quire writes: 1. At most `maxJsonCharacters` once serialized.
 */
export function richTextDocumentSchema(maxJsonCharacters: number) {
  return z
    .strictObject({
      object: z.literal('document'),
      data: z.looseObject({ schemaVersion: z.number().int().min(1).default(1) }).default({ schemaVersion: 1 }),
      nodes: z.array(richTextNode).max(5000),
    })
    .refine(
      (doc) => JSON.stringify(doc).length <= maxJsonCharacters,
      `document too large (${maxJsonCharacters.toLocaleString('en')} characters of JSON at most)`,
    );
}
