import Ajv from 'ajv';

/**
 * The adaptive schema of a site (spec "Site adaptive schema"): a draft-07 JSON Schema of
 * the visitor's claims. Its properties are booleans, plus `unsigned`, an object of
 * boolean claims nobody signed; no additional properties anywhere.
 */

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
export const UNSIGNED_DESCRIPTION = 'Unsigned claims of the site visitor.';

// A type alias (not an interface) so that it fits the JSON object it is stored as (db/models.ts).
export type AdaptiveJsonSchema = {
  $schema?: string;
  type: 'object';
  properties: Record<string, unknown>;
  additionalProperties: false;
};

/** What a site has before anyone sets its schema. */
export function defaultAdaptiveSchema(): AdaptiveJsonSchema {
  return {
    type: 'object',
    properties: {
      unsigned: { type: 'object', description: UNSIGNED_DESCRIPTION, properties: {}, additionalProperties: false },
    },
    additionalProperties: false,
  };
}

const ajv = new Ajv({ strict: false });
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_CLAIMS = 100;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function onlyKeys(value: Record<string, unknown>, allowed: string[], where: string): string | undefined {
  const extra = Object.keys(value).filter((key) => !allowed.includes(key));
  return extra.length ? `${where}: unexpected keyword ${extra.map((k) => `"${k}"`).join(', ')}` : undefined;
}

/** A boolean claim: `{type: 'boolean', description}` (OpenAPI SiteAdaptiveJSONSchemaPrimitives). */
function checkBooleanClaim(value: unknown, where: string): string | undefined {
  if (!isObject(value) || value.type !== 'boolean') return `${where}: must be {"type": "boolean", "description": "…"}`;
  if (typeof value.description !== 'string') return `${where}.description: required, a string`;
  return onlyKeys(value, ['type', 'description'], where);
}

function checkClaims(properties: unknown, where: string, allowUnsigned: boolean): string | undefined {
  if (!isObject(properties)) return `${where}: must be an object`;
  const names = Object.keys(properties);
  if (names.length > MAX_CLAIMS) return `${where}: at most ${MAX_CLAIMS} claims`;
  for (const name of names) {
    if (!CLAIM_NAME.test(name)) return `${where}.${name}: claim names are letters, digits and _ (not starting with a digit)`;
    if (allowUnsigned && name === 'unsigned') {
      const unsigned = properties.unsigned;
      if (!isObject(unsigned) || unsigned.type !== 'object') return `${where}.unsigned: must be {"type": "object", ...}`;
      if (unsigned.additionalProperties !== false) return `${where}.unsigned.additionalProperties: must be false`;
      if (unsigned.description !== UNSIGNED_DESCRIPTION) return `${where}.unsigned.description: must be "${UNSIGNED_DESCRIPTION}"`;
      const problem =
        onlyKeys(unsigned, ['type', 'description', 'properties', 'additionalProperties'], `${where}.unsigned`) ??
        checkClaims(unsigned.properties, `${where}.unsigned.properties`, false);
      if (problem) return problem;
      continue;
    }
    const problem = checkBooleanClaim(properties[name], `${where}.${name}`);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Checks a proposed schema: a valid draft-07 schema (ajv's meta-schema) and of the shape
 * above. Returns the problem (prefixed with `jsonSchema`) or the normalized schema.
 */
export function validateAdaptiveSchema(value: unknown): { ok: true; schema: AdaptiveJsonSchema } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message: `jsonSchema${message.startsWith('.') || message.startsWith(':') ? '' : ': '}${message}` });
  if (!isObject(value)) return fail(': must be an object');
  if (value.$schema !== undefined && value.$schema !== DRAFT_07) return fail(`.$schema: must be "${DRAFT_07}"`);
  if (!ajv.validateSchema({ ...value, $schema: DRAFT_07 })) {
    const first = ajv.errors?.[0];
    return fail(`${first?.instancePath ? first.instancePath.replaceAll('/', '.') : ''}: not a valid draft-07 JSON Schema (${first?.message ?? 'invalid'})`);
  }
  if (value.type !== 'object') return fail('.type: must be "object"');
  if (value.additionalProperties !== false) return fail('.additionalProperties: must be false');
  const extra = onlyKeys(value, ['$schema', 'type', 'properties', 'additionalProperties', 'description', 'title'], '');
  if (extra) return fail(extra);
  const problem = checkClaims(value.properties ?? {}, '.properties', true);
  if (problem) return fail(problem);
  const properties = { ...(value.properties as Record<string, unknown> | undefined) };
  return { ok: true, schema: { ...(value as object), type: 'object', properties, additionalProperties: false } as AdaptiveJsonSchema };
}

export interface TemplateCondition {
  description: string;
  condition: string;
}

/** Conditions an editor can start from: one per boolean claim, in the evaluator's syntax. */
export function templateConditions(schema: AdaptiveJsonSchema): TemplateCondition[] {
  const items: TemplateCondition[] = [];
  const add = (claims: unknown, prefix: string, signed: boolean) => {
    if (!isObject(claims)) return;
    for (const [name, claim] of Object.entries(claims)) {
      if (signed && name === 'unsigned') continue;
      const described = isObject(claim) && typeof claim.description === 'string' && claim.description ? claim.description : name;
      items.push({ description: `Visitor ${signed ? '' : '(unsigned) '}${described} is true`, condition: `${prefix}.${name} === true` });
      items.push({ description: `Visitor ${signed ? '' : '(unsigned) '}${described} is not true`, condition: `${prefix}.${name} !== true` });
    }
  };
  add(schema.properties, 'visitor.claims', true);
  const unsigned = schema.properties.unsigned;
  if (isObject(unsigned)) add(unsigned.properties, 'visitor.claims.unsigned', false);
  return items;
}
