import { AssertionError } from 'node:assert';
import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Validates response bodies against the component schemas of the public GitBook OpenAPI
 * document (@gitbook/api's spec/openapi.json): what the official client expects.
 * The `discriminator` keyword stays off: ajv cannot compile it for the document's
 * Revision / RevisionPage unions (their members are allOf compositions), and `oneOf`
 * alone still demands that exactly one member matches.
 */
let ajv: Ajv2020 | undefined;

function validator(): Ajv2020 {
  if (ajv) return ajv;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const spec = require('@gitbook/api/spec/openapi.json');
  ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: false, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('emoji', true).addFormat('icon', true);
  ajv.addSchema(spec, 'gitbook');
  return ajv;
}

/** The schema violations of `value` as the component schema `name`, empty when it conforms. */
export function openApiErrors(name: string, value: unknown): string[] {
  const validate = validator().getSchema(`gitbook#/components/schemas/${name}`);
  if (!validate) throw new Error(`no component schema named ${name}`);
  if (validate(value)) return [];
  return describeSchemaErrors(validate.errors);
}

/** ajv's errors as lines: where, what, and the keyword's parameters. */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

export function assertMatchesOpenApi(name: string, value: unknown): void {
  const errors = openApiErrors(name, value);
  if (errors.length) throw new AssertionError({ message: `response does not match OpenAPI ${name}:\n  ${errors.slice(0, 10).join('\n  ')}` });
}
