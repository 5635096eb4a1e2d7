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
const rulesConfiguration = z.object({ type: z.literal('rules'), rules: z.array(mergeRule).max(20) }).strict();
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
