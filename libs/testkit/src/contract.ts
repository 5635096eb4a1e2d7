import { AssertionError } from 'node:assert';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describeSchemaErrors } from './openapi';

/**
 * Every answer a test gets from Quire, checked against what Quire says it answers. The fetch of
 * every test file goes through `checkingFetch` (the preset's setup file installs it), so whoever
 * asks (apiClient, the official client, a test's own fetch) gets the check:
 * - an operation of the API document: the status must be one it documents, a JSON body must match
 *   its schema, another body must have its media type;
 * - any error (4xx, 5xx), and anything at an address no operation has: the standard error body,
 *   `{ "error": { "code": <the status>, "message": "…" } }`;
 * - what the document leaves out (the document itself, health, the reference page, published
 *   sites): the media type each of them answers (`pageAnswer`).
 * A stack's gateway is registered by the stack (`checkAnswersOf`) and described by its whole
 * document (`GET /v1/openapi.json`); a service a test runs in its own process is recognized by
 * the request id every Quire answer carries and described by its part of the document
 * (`GET /openapi.json`, what the gateway merges). Anything else (a test's fake servers) is not
 * Quire's, and not checked.
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

type ServerKind = 'gateway' | 'service';

interface Server {
  kind: ServerKind;
  origin: string;
  contract?: Promise<Contract>;
}

/** The header every answer of the gateway and of the services carries (runtime's REQUEST_ID_HEADER); a fake server's do not. */
const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The servers of this test file, by origin: a registered gateway, a recognized service, or
 * undefined for a server that is not Quire's; and what loads the documents, the fetch under the
 * checking one (a document is not checked against itself). Kept on the test file's global object:
 * its setup file and the test reach this module by different paths (dist and src here).
 */
const state = ((globalThis as { [key: symbol]: unknown })[Symbol.for('quire.testkit.contract')] ??= {
  servers: new Map<string, Promise<Server | undefined>>(),
  loadingFetch: (...args: Parameters<typeof fetch>) => fetch(...args),
}) as { servers: Map<string, Promise<Server | undefined>>; loadingFetch: typeof fetch };
const { servers } = state;

/** Answers from `baseUrl` (a stack's gateway) are checked from now on against its whole API document. */
export function checkAnswersOf(baseUrl: string): void {
  const { origin } = new URL(baseUrl);
  servers.set(origin, Promise.resolve({ kind: 'gateway', origin }));
}

/** `fetch`, checking every answer that comes from Quire (see above). */
export function checkingFetch(inner: typeof fetch): typeof fetch {
  state.loadingFetch = inner;
  return async function fetch(input, init) {
    const response = await inner(input, init);
    const request = typeof input === 'object' && 'url' in input ? input : undefined;
    // Where the answer came from: the last address of the redirects followed, asked with GET.
    const url = new URL(response.url || (request?.url ?? String(input)));
    const server = await serverAt(url.origin, response);
    if (!server) return response;
    const method = response.redirected ? 'GET' : (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const contentType = response.headers.get('content-type') ?? '';
    const text = method === 'HEAD' ? '' : await response.clone().text();
    let body: unknown = text;
    if (text && isJson(contentType)) {
      try {
        body = JSON.parse(text);
      } catch {
        failure(method, url.pathname, response.status, `its body is not the JSON its media type ${contentType} says`, text);
      }
    }
    await checkServerAnswer(server, method, `${url.pathname}${url.search}`, response.status, contentType, body);
    return response;
  };
}

/**
 * Throws when the answer of `method target` from `baseUrl` breaks what Quire says it answers;
 * nothing for a server that is not Quire's. For answers a test gets some other way (a recording proxy).
 */
export async function checkAnswer(baseUrl: string, method: string, target: string, status: number, contentType: string, body: unknown): Promise<void> {
  const server = await servers.get(new URL(baseUrl).origin);
  if (server) await checkServerAnswer(server, method.toUpperCase(), target, status, contentType, body);
}

/** The server at `origin`, known or recognized by this answer's request id (a service: it serves its part of the document). */
function serverAt(origin: string, response: Response): Promise<Server | undefined> | undefined {
  const known = servers.get(origin);
  if (known || !response.headers.has(REQUEST_ID_HEADER)) return known;
  const found = (async (): Promise<Server | undefined> => {
    // The gateway answers 404 there (a stack's gateway is registered; one a test runs itself is not checked).
    const part = await loadDocument(`${origin}/openapi.json`).catch(() => undefined);
    if (!part?.paths || !part.schemas) return undefined;
    return {
      kind: 'service',
      origin,
      contract: Promise.resolve(compileContract({ openapi: '3.1.0', paths: part.paths, components: { schemas: part.schemas } })),
    };
  })();
  servers.set(origin, found);
  return found;
}

const isJson = (contentType: string) => /^application\/([\w.+-]+\+)?json\b/i.test(contentType);

function failure(method: string, path: string, status: number, reason: string, body: unknown): never {
  throw new AssertionError({
    message: `${method} ${path} answered ${status}, unlike what Quire says it answers: ${reason}\n  body: ${(typeof body === 'string' ? body : (JSON.stringify(body) ?? '')).slice(0, 1_000)}`,
  });
}

async function checkServerAnswer(server: Server, method: string, target: string, status: number, contentType: string, body: unknown): Promise<void> {
  const path = target.split('?')[0]!;
  const fail = (reason: string): never => failure(method, path, status, reason, body);
  const page = pageAnswer(server.kind, path, status);
  if (page) return checkMediaType(page, status, contentType, body, fail);

  let contract: Contract;
  try {
    contract = await contractOf(server);
  } catch (error) {
    // The stack is down on purpose (fault tests): its 503 is checked without a document.
    if (status === 503) return checkError(status, contentType, body, fail);
    throw error;
  }
  const operation = contract.find(method === 'HEAD' ? 'get' : method.toLowerCase(), path);
  if (!operation) {
    if (status < 400) fail('no operation of the document has this method and path');
    return checkError(status, contentType, body, fail);
  }
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => operation.responses[k]);
  if (!key) return fail(`the operation ${operation.method.toUpperCase()} ${operation.path} documents ${Object.keys(operation.responses).join(', ')} only`);
  if (status >= 400) return checkError(status, contentType, body, fail);
  const content = operation.responses[key]!.content as Json | undefined;
  if (!content) {
    if (body !== '' && body !== undefined) fail('the document says it has no body');
    return;
  }
  const validate = contract.validator(operation, key);
  if (!validate) return checkMediaType(Object.keys(content), status, contentType, body, fail);
  if (!isJson(contentType)) return fail(`the document describes a JSON body, the answer is ${contentType || 'empty'}`);
  if (!validate(body)) fail(errorsOf(validate));
}

/** The one error body of the API (design.md §3), with the answer's own status as its code. */
const validateError = new Ajv2020({ strict: true }).compile({
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { type: 'integer' }, message: { type: 'string', minLength: 1 } },
    },
  },
});

function checkError(status: number, contentType: string, body: unknown, fail: (reason: string) => never): void {
  if (status < 400) fail('only an error may come from here');
  if (!isJson(contentType)) fail(`not the standard error body: its media type is ${contentType || 'none'}`);
  if (!validateError(body)) fail(`not the standard error body: ${errorsOf(validateError)}`);
  const { code } = (body as { error: { code: number } }).error;
  if (code !== status) fail(`the error body's code is ${code}`);
}

/**
 * What an answer of the paths the API document leaves out must be: media types (one of them), the
 * standard error body, no body (a 304), or anything (a redirect's short note). Undefined for a
 * path of the document (or none).
 */
type Expected = readonly string[] | 'error' | 'empty' | 'any';

const JAVASCRIPT = ['application/javascript', 'text/javascript'];
/** The reference page's renderer files (/docs/assets: the swagger-ui-dist package), by extension. */
const ASSET_TYPES: Record<string, readonly string[]> = {
  js: JAVASCRIPT,
  css: ['text/css'],
  html: ['text/html'],
  png: ['image/png'],
  map: ['application/json'],
};

function pageAnswer(kind: ServerKind, path: string, status: number): Expected | undefined {
  if (path === '/healthz') return status === 200 ? ['application/json'] : 'error';
  // Ready or not, the readiness check answers its own body (which checks failed).
  if (path === '/readyz') return status === 200 || status === 503 ? ['application/json'] : 'error';
  if (path === (kind === 'gateway' ? '/v1/openapi.json' : '/openapi.json')) return status === 200 ? ['application/json'] : 'error';
  // A service's Prometheus metrics (its caches'), on its own port.
  if (kind === 'service' && path === '/metrics') return status === 200 ? ['text/plain'] : 'error';
  if (kind === 'gateway' && /^\/docs(\/|$)/.test(path)) {
    if (status === 301) return 'any';
    if (status === 304) return 'empty';
    if (status !== 200) return 'error';
    if (path === '/docs' || path === '/docs/') return ['text/html'];
    if (path === '/docs/init.js') return JAVASCRIPT;
    return ASSET_TYPES[/\.(\w+)$/.exec(path)?.[1] ?? ''] ?? ['(a known type for this file)'];
  }
  // Published sites: /sites/<org>/<site>/… at the gateway; on publishing, also a site's own host (/hosted/<host>/…).
  const site = (kind === 'gateway' ? /^\/sites\/[^/]+\/[^/]+(\/.*)?$/ : /^\/(?:sites\/[^/]+\/[^/]+|hosted\/[^/]+)(\/.*)?$/).exec(path);
  if (site) return siteAnswer(site[1] ?? '', status);
  return undefined;
}

/** A published site's answer at `below` (under the site's root): its pages and search are HTML, so are its 401 and 404 pages (and a refused feedback form's 400). */
function siteAnswer(below: string, status: number): Expected {
  // To the root with its slash, to the files host, to a sign-in; a site's redirects (307, 308: GitBook's permanent ones).
  if (status === 301 || status === 302 || status === 307 || status === 308) return 'any';
  if (status === 304) return 'empty';
  if (status === 401 || status === 404) return ['text/html'];
  // A page's feedback form refused (no rating): a page for the reader who sent it.
  if (below === '/~/feedback' && status === 400) return ['text/html'];
  // The MCP endpoint: JSON-RPC answers (the SDK's, its errors included), 202 for a notification.
  if (below === '/~/mcp') return status === 202 ? 'empty' : ['application/json', 'text/event-stream'];
  if (status !== 200) return 'error';
  if (below === '/robots.txt' || below === '/llms.txt' || below === '/llms-full.txt') return ['text/plain'];
  if (below === '/sitemap.xml') return ['application/xml'];
  if (below === '/~/site.css' || /^\/~\/theme\/[^/]+\/[^/]+\.css$/.test(below)) return ['text/css'];
  if (below.startsWith('/~/fonts/')) return ['font/woff2'];
  if (below.endsWith('.md')) return ['text/markdown'];
  return ['text/html'];
}

/** `type/subtype` of a Content-Type header in a media range (`*\/*`, `image/*`, `text/html`). */
function inRange(contentType: string, range: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (range === '*/*') return type !== '';
  return range.endsWith('/*') ? type.startsWith(range.slice(0, -1)) : type === range;
}

function checkMediaType(expected: Expected, status: number, contentType: string, body: unknown, fail: (reason: string) => never): void {
  if (expected === 'any') return;
  if (expected === 'error') return checkError(status, contentType, body, fail);
  if (expected === 'empty') {
    if (body !== '' && body !== undefined) fail('it should have no body');
    return;
  }
  if (!expected.some((range) => inRange(contentType, range))) fail(`its media type ${contentType || 'none'} is not ${expected.join(' or ')}`);
}

function errorsOf(validate: ValidateFunction): string {
  return describeSchemaErrors(validate.errors).slice(0, 8).join('; ');
}

/** The server's document, loaded once (again after a failure: a stack's gateway answers 503 until every service does). */
function contractOf(server: Server): Promise<Contract> {
  if (!server.contract) {
    const loading = loadDocument(`${server.origin}/v1/openapi.json`).then(compileContract);
    server.contract = loading;
    loading.catch(() => {
      if (server.contract === loading) server.contract = undefined;
    });
  }
  return server.contract;
}

async function loadDocument(url: string): Promise<Json> {
  const response = await state.loadingFetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as Json;
}

/** `{name}` matches one segment; a last resort lets a parameter span several (a page path). */
function matcher(template: string, wide: boolean): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? (wide ? '(.+)' : '([^/]+)') : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

function compileContract(document: Json): Contract {
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
        const ref = operation.responses[status]?.content?.['application/json']
          ? `quire#/${pointer('paths', operation.path, operation.method, 'responses', status, 'content', 'application/json', 'schema')}`
          : undefined;
        validators.set(key, ref ? ajv.getSchema(ref) : undefined);
      }
      return validators.get(key);
    },
  };
}
