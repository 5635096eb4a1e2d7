import { AssertionError } from 'node:assert';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/*
 * Validation against the GitBook OpenAPI component schemas for the revision shapes.
 * The shared assertMatchesOpenApi compiles with `discriminator: true`, which ajv cannot
 * compile for Revision / RevisionPage (their oneOf members are allOf compositions);
 * with the discriminator keyword off, oneOf still checks that exactly one member matches.
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

export function assertMatchesSchema(name: string, value: unknown): void {
  const validate = validator().getSchema(`gitbook#/components/schemas/${name}`);
  if (!validate) throw new Error(`no component schema named ${name}`);
  if (validate(value)) return;
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  throw new AssertionError({ message: `response does not match OpenAPI ${name}:\n  ${errors.slice(0, 10).join('\n  ')}` });
}
