import { AssertionError } from 'node:assert';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describeSchemaErrors } from './openapi';

/**
 * Every answer of a Quire stack, checked against the operation's response in Quire's own API
 * document (`GET /v1/openapi.json`): the status must be one the operation documents, and a
 * JSON body must match its schema. The test clients of a stack do it on every request, so the
 * document and the presenters cannot drift apart without a suite failing.
 */
type Json = Record<string, any>;

interface Operation {
  path: string;
  method: string;
  responses: Record<string, Json>;
}

interface Contract {
  find(method: string, path: string): Operation | undefined;
  validator(operation: Operation, status: string): ValidateFunction | undefined;
}

const checkedBases = new Set<string>();
const contracts = new Map<string, Promise<Contract>>();

/** Answers from `baseUrl` are checked from now on (the test stack registers itself). */
export function checkAnswersOf(baseUrl: string): void {
  checkedBases.add(baseUrl);
}

/** Paths outside the API: the document itself, the reference page, health and metrics. */
const UNDESCRIBED = /^\/(?!v1\/)|^\/v1\/openapi\.json$/;

/** Throws when the answer of `method path` from `baseUrl` breaks the document; nothing for an unchecked base. */
export async function checkAnswer(baseUrl: string, method: string, target: string, status: number, contentType: string, body: unknown): Promise<void> {
  if (!checkedBases.has(baseUrl)) return;
  const path = target.split('?')[0]!;
  if (UNDESCRIBED.test(path)) return;
  let contract: Contract;
  try {
    contract = await contractOf(baseUrl);
  } catch (error) {
    // The stack is down on purpose (fault tests): a 503 cannot be checked against a document nobody serves.
    if (status === 503) return;
    throw error;
  }
  const fail = (reason: string) => {
    throw new AssertionError({
      message: `${method} ${path} answered ${status}, unlike Quire's API document: ${reason}\n  body: ${JSON.stringify(body).slice(0, 1_000)}`,
    });
  };
  const operation = contract.find(method.toLowerCase(), path);
  if (!operation) {
    // An address no operation has: only an error may come back from it.
    if (status >= 400) return checkError(contract, body, fail);
    return fail('no operation of the document has this method and path');
  }
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => operation.responses[k]);
  if (!key) return fail(`the operation ${operation.method.toUpperCase()} ${operation.path} documents ${Object.keys(operation.responses).join(', ')} only`);
  const content = operation.responses[key]!.content as Json | undefined;
  if (!content) {
    if (body !== '' && body !== undefined) fail('the document says it has no body');
    return;
  }
  const validate = contract.validator(operation, key);
  if (!validate) {
    if (!Object.keys(content).some((type) => contentType.startsWith(type)))
      fail(`its media type ${contentType} is not one of ${Object.keys(content).join(', ')}`);
    return;
  }
  if (!contentType.includes('json')) return fail(`the document describes a JSON body, the answer is ${contentType || 'empty'}`);
  if (!validate(body)) fail(errorsOf(validate));
}

function checkError(contract: Contract, body: unknown, fail: (reason: string) => never | void) {
  const validate = contract.validator({ path: '', method: '', responses: {} }, 'error');
  if (validate && !validate(body)) fail(`not the standard error body: ${errorsOf(validate)}`);
}

function errorsOf(validate: ValidateFunction): string {
  return describeSchemaErrors(validate.errors).slice(0, 8).join('; ');
}

function contractOf(baseUrl: string): Promise<Contract> {
  let contract = contracts.get(baseUrl);
  if (!contract) {
    contract = loadContract(baseUrl);
    contracts.set(baseUrl, contract);
    contract.catch(() => contracts.delete(baseUrl));
  }
  return contract;
}

/** `{name}` matches one segment; a last resort lets a parameter span several (a page path). */
function matcher(template: string, wide: boolean): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? (wide ? '(.+)' : '([^/]+)') : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

async function loadContract(baseUrl: string): Promise<Contract> {
  const response = await fetch(`${baseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`the API document answered ${response.status}`);
  const document = (await response.json()) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, 'quire');
  const operations: Array<Operation & { narrow: RegExp; wide: RegExp; literal: number }> = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(methods))
      operations.push({
        path,
        method,
        responses: operation.responses ?? {},
        narrow: matcher(path, false),
        wide: matcher(path, true),
        literal: path.replace(/\{[^}]+\}/g, '').length,
      });
  }
  // The most specific template wins, as in the routers (`/content/page/{pageId}` before `/content/path/{pagePath}`).
  operations.sort((a, b) => b.literal - a.literal);
  const validators = new Map<string, ValidateFunction | undefined>();
  const pointer = (...tokens: string[]) => tokens.map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  return {
    find(method, path) {
      const candidates = operations.filter((o) => o.method === method);
      return candidates.find((o) => o.narrow.test(path)) ?? candidates.find((o) => o.wide.test(path));
    },
    validator(operation, status) {
      const key = `${operation.method} ${operation.path} ${status}`;
      if (!validators.has(key)) {
        const ref =
          status === 'error'
            ? 'quire#/components/schemas/Error'
            : operation.responses[status]?.content?.['application/json']
              ? `quire#/${pointer('paths', operation.path, operation.method, 'responses', status, 'content', 'application/json', 'schema')}`
              : undefined;
        validators.set(key, ref ? ajv.getSchema(ref) : undefined);
      }
      return validators.get(key);
    },
  };
}
