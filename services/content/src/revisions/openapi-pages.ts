import { parse as parseYaml } from 'yaml';
import { declareCache, type LruCache } from '@quire/runtime';
import type { ContentContext } from '../kernel';
import type { FileBlobDoc, RevisionDoc, RevisionFileDoc, RevisionPageDoc } from './revision-store';

/*
 * Pages generated from an OpenAPI 3.x document (computed source `builtin:openapi`). The
 * document is a file of the same revision, named by its slug: the file name without its
 * extension (petstore.yaml ↔ "petstore"). `props.doc` says what a page shows:
 *   operations (`props.page` = a tag): each operation of that tag — `METHOD path` heading,
 *     summary, description, parameters table, request body and responses with schema names;
 *   models: every schema of components.schemas with its properties.
 */

export type OpenApiDocument = Record<string, unknown> & { openapi: string; info?: Record<string, unknown>; paths?: Record<string, unknown> };

type Json = Record<string, unknown>;

export const OPENAPI_COMPUTED_TYPE = 'builtin:openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** The tag of operations that have none. */
export const UNTAGGED = 'default';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Tag pages one api-reference template makes at most (one page per tag of the specification). */
export const MAX_TAG_PAGES = 200;
/** Generated markdown stops at about this many characters: `$ref`s let a small file repeat a big part many times. */
const MAX_GENERATED_CHARS = 1_000_000;
/** allOf parts followed for the properties of one model. */
const MAX_ALLOF_PARTS = 64;

/** A JSON pointer token (`~1` is `/`, `~0` is `~`, percent-encoded in a URI fragment); a malformed escape stays as written. */
function pointerToken(raw: string): string {
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: the token is taken literally.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The lines of a generated page; once they pass MAX_GENERATED_CHARS it is `full` (generators stop) and ends with a note. */
class PageText {
  private readonly lines: string[] = [];
  private length = 0;
  full = false;

  push(...lines: string[]): void {
    for (const line of lines) {
      if (this.full) return;
      this.length += line.length + 1;
      if (this.length > MAX_GENERATED_CHARS) {
        this.full = true;
        this.lines.push('', '> The rest of this page is left out: the specification generates too much text for one page.', '');
        return;
      }
      this.lines.push(line);
    }
  }

  toString(): string {
    return this.lines.join('\n');
  }
}

/** The slug of a specification file: its name without the extension. */
export function specSlugOf(fileName: string): string {
  return fileName.replace(/\.[^.]*$/, '');
}

/** The file holding specification `slug` (the latest uploaded when several share the name). */
export function specFileOf(files: readonly RevisionFileDoc[], slug: string): RevisionFileDoc | undefined {
  return [...files].reverse().find((file) => specSlugOf(file.name) === slug);
}

export type ParsedSpec = { ok: true; doc: OpenApiDocument } | { ok: false; message: string };

function parseJsonOrYaml(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch {
    // Aliases are bounded: a small file must not expand into a huge document.
    return parseYaml(source, { maxAliasCount: 100 });
  }
}

/** Parses a JSON or YAML OpenAPI 3.x document; the message says why it is not one. */
export function parseOpenApi(source: string): ParsedSpec {
  let doc: unknown;
  try {
    // JSON first (far faster on big files); YAML (a superset) for everything else.
    doc = parseJsonOrYaml(source);
  } catch (error) {
    return { ok: false, message: `it does not parse as JSON or YAML (${(error as Error).message.split('\n')[0]})` };
  }
  if (!isObject(doc)) return { ok: false, message: 'it is not an OpenAPI document (not an object)' };
  if (typeof doc.openapi !== 'string' || !/^3\.\d+/.test(doc.openapi))
    return { ok: false, message: 'it is not an OpenAPI 3.x document (no `openapi: 3.x` field)' };
  if (doc.paths !== undefined && !isObject(doc.paths)) return { ok: false, message: 'its `paths` is not an object' };
  return { ok: true, doc: doc as OpenApiDocument };
}

// Parsed documents by blob hash (content-addressed: the same bytes parse the same),
// weighed by their estimated heap size: a parsed document takes about 16 to 20 times its text.
const PARSED_BYTES_PER_BYTE = 20;

/**
 * Parsed OpenAPI documents by blob hash, and generated markdown by (revision, page): both are
 * made from immutable bytes, so they never go stale (ctx.caches).
 */
export const openApiCaches = {
  openApiSpecs: declareCache<ParsedSpec>(128),
  openApiPages: declareCache<string>(32),
};

declare module '../kernel' {
  interface ContentCaches {
    openApiSpecs: LruCache<ParsedSpec>;
    openApiPages: LruCache<string>;
  }
}

export async function loadSpec(ctx: ContentContext, file: RevisionFileDoc): Promise<ParsedSpec> {
  const cached = ctx.caches.openApiSpecs.get(file.blobHash);
  if (cached) return cached;
  const blob = await ctx.models.FileBlob.findById(file.blobHash).lean<FileBlobDoc>();
  if (!blob) return { ok: false, message: 'its bytes are missing' };
  const data = Buffer.isBuffer(blob.data) ? blob.data : Buffer.from((blob.data as unknown as { buffer: ArrayBuffer }).buffer);
  const parsed = parseOpenApi(data.toString('utf8'));
  ctx.caches.openApiSpecs.set(file.blobHash, parsed, data.length * PARSED_BYTES_PER_BYTE);
  return parsed;
}

/** Follows local `$ref`s (`#/components/...`); null when one does not resolve. */
function resolve(doc: OpenApiDocument, value: unknown, depth = 0): Json | null {
  if (!isObject(value)) return null;
  if (typeof value.$ref !== 'string') return value;
  if (depth > 10 || !value.$ref.startsWith('#/')) return null;
  let target: unknown = doc;
  for (const raw of value.$ref.slice(2).split('/')) {
    const key = pointerToken(raw);
    target = isObject(target) && Object.hasOwn(target, key) ? target[key] : undefined;
  }
  return resolve(doc, target, depth + 1);
}

/** A schema's name as the pages show it: `Pet`, `Pet[]`, `string (date-time)`, `Cat | Dog`. */
export function schemaName(schema: unknown, depth = 0): string {
  if (!isObject(schema) || depth > 8) return 'any';
  if (typeof schema.$ref === 'string') return pointerToken(schema.$ref.split('/').pop() ?? '') || 'any';
  for (const [key, joiner] of [
    ['oneOf', ' | '],
    ['anyOf', ' | '],
    ['allOf', ' & '],
  ] as const) {
    if (Array.isArray(schema[key])) return (schema[key] as unknown[]).map((part) => schemaName(part, depth + 1)).join(joiner);
  }
  const type = Array.isArray(schema.type) ? (schema.type as unknown[]).filter((t) => t !== 'null').join(' | ') : text(schema.type);
  if (type === 'array') return `${schemaName(schema.items, depth + 1)}[]`;
  if (type) return schema.format ? `${type} (${text(schema.format)})` : type;
  if (isObject(schema.properties)) return 'object';
  return 'any';
}

/** A table cell: one line, pipes escaped. */
function cell(value: string): string {
  return value
    .replace(/\r?\n+/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

const code = (value: string) => `\`${value.replace(/`/g, "'")}\``;

interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  operation: Json;
  pathItem: Json;
}

function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const pathItem = resolve(doc, rawItem);
    if (!pathItem) continue;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (isObject(operation)) out.push({ method, path, operation, pathItem });
    }
  }
  return out;
}

function tagsOfOperation(operation: Json): string[] {
  const tags = Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string' && tag.trim() !== '') : [];
  return tags.length > 0 ? tags : [UNTAGGED];
}

/** The tags that have operations: the document's `tags` order first, then first use. */
export function specTags(doc: OpenApiDocument): Array<{ name: string; description: string }> {
  const used = new Set(operationsOf(doc).flatMap((op) => tagsOfOperation(op.operation)));
  const declared = Array.isArray(doc.tags) ? doc.tags.filter(isObject) : [];
  const out: Array<{ name: string; description: string }> = [];
  for (const tag of declared) {
    const name = text(tag.name);
    if (used.delete(name)) out.push({ name, description: text(tag.description) });
  }
  for (const name of used) out.push({ name, description: '' });
  return out;
}

export function hasModels(doc: OpenApiDocument): boolean {
  const schemas = isObject(doc.components) ? doc.components.schemas : undefined;
  return isObject(schemas) && Object.keys(schemas).length > 0;
}

/** The "API Reference" overview page: title, version, description, servers. */
export function overviewMarkdown(doc: OpenApiDocument): string {
  const info = isObject(doc.info) ? doc.info : {};
  const out = new PageText();
  out.push(`# ${text(info.title) || 'API Reference'}`, '');
  if (info.version !== undefined) out.push(`Version ${code(String(info.version))}`, '');
  if (text(info.description)) out.push(text(info.description).trim(), '');
  const servers = Array.isArray(doc.servers) ? doc.servers.filter(isObject) : [];
  if (servers.length > 0) {
    out.push('## Servers', '');
    for (const server of servers) out.push(`- ${code(text(server.url))}${text(server.description) ? ` — ${cell(text(server.description))}` : ''}`);
    out.push('');
  }
  out.push('The pages below are generated from the specification: they follow it whenever the file changes.', '');
  return out.toString();
}

function parametersSection(doc: OpenApiDocument, op: Operation, out: PageText): void {
  // Operation parameters override path-level ones with the same name and location.
  const byKey = new Map<string, Json>();
  for (const raw of [
    ...(Array.isArray(op.pathItem.parameters) ? op.pathItem.parameters : []),
    ...(Array.isArray(op.operation.parameters) ? op.operation.parameters : []),
  ]) {
    const parameter = resolve(doc, raw);
    if (parameter) byKey.set(`${text(parameter.in)}:${text(parameter.name)}`, parameter);
  }
  if (byKey.size === 0) return;
  out.push('### Parameters', '', '| Name | In | Type | Required | Description |', '| --- | --- | --- | --- | --- |');
  for (const parameter of byKey.values()) {
    if (out.full) return;
    const required = parameter.required === true || parameter.in === 'path';
    out.push(
      `| ${cell(text(parameter.name))} | ${cell(text(parameter.in))} | ${code(schemaName(parameter.schema))} | ${required ? 'yes' : 'no'} | ${cell(text(parameter.description))} |`,
    );
  }
  out.push('');
}

function contentList(content: unknown): string {
  if (!isObject(content)) return '';
  return Object.entries(content)
    .map(([type, media]) => `${code(type)}: ${code(schemaName(isObject(media) ? media.schema : undefined))}`)
    .join(', ');
}

function requestBodySection(doc: OpenApiDocument, op: Operation, out: PageText): void {
  const body = resolve(doc, op.operation.requestBody);
  if (!body) return;
  out.push('### Request body', '');
  if (text(body.description)) out.push(text(body.description).trim(), '');
  out.push(`${contentList(body.content) || 'No content described.'}${body.required === true ? ' (required)' : ''}`, '');
}

function responsesSection(doc: OpenApiDocument, op: Operation, out: PageText): void {
  const responses = isObject(op.operation.responses) ? op.operation.responses : {};
  if (Object.keys(responses).length === 0) return;
  out.push('### Responses', '', '| Status | Description | Content |', '| --- | --- | --- |');
  for (const [status, raw] of Object.entries(responses)) {
    if (out.full) return;
    const response = resolve(doc, raw) ?? {};
    out.push(`| ${cell(status)} | ${cell(text(response.description))} | ${cell(contentList(response.content))} |`);
  }
  out.push('');
}

/** Markdown of the operations tagged `tag`. */
export function operationsMarkdown(doc: OpenApiDocument, tag: string): string {
  const declared = specTags(doc).find((candidate) => candidate.name === tag);
  const out = new PageText();
  if (declared?.description) out.push(declared.description.trim(), '');
  const operations = operationsOf(doc).filter((op) => tagsOfOperation(op.operation).includes(tag));
  if (operations.length === 0) out.push(`No operation of the specification has the tag ${code(tag)}.`, '');
  for (const op of operations) {
    if (out.full) break;
    out.push(`## ${op.method.toUpperCase()} ${op.path}`, '');
    if (op.operation.deprecated === true) out.push('> **Deprecated.**', '');
    if (text(op.operation.summary)) out.push(`**${text(op.operation.summary).trim()}**`, '');
    if (text(op.operation.description)) out.push(text(op.operation.description).trim(), '');
    if (text(op.operation.operationId)) out.push(`Operation ID: ${code(text(op.operation.operationId))}`, '');
    parametersSection(doc, op, out);
    requestBodySection(doc, op, out);
    responsesSection(doc, op, out);
  }
  return out.toString();
}

/**
 * Properties of an object schema, including those of its allOf parts. Each part is read
 * once (cycles and diamonds of `$ref`s), at most MAX_ALLOF_PARTS of them, 8 levels deep.
 */
function propertiesOf(doc: OpenApiDocument, root: Json): { properties: Array<[string, unknown]>; required: Set<string> } {
  const properties: Array<[string, unknown]> = [];
  const required = new Set<string>();
  const seen = new Set<Json>();
  const visit = (schema: Json, depth: number): void => {
    if (seen.has(schema) || seen.size >= MAX_ALLOF_PARTS) return;
    seen.add(schema);
    if (isObject(schema.properties)) for (const entry of Object.entries(schema.properties)) properties.push(entry);
    if (Array.isArray(schema.required)) for (const name of schema.required) if (typeof name === 'string') required.add(name);
    if (!Array.isArray(schema.allOf) || depth >= 8) return;
    for (const part of schema.allOf) {
      const resolved = resolve(doc, part);
      if (resolved) visit(resolved, depth + 1);
    }
  };
  visit(root, 0);
  return { properties, required };
}

/** Markdown of every schema in components.schemas. */
export function modelsMarkdown(doc: OpenApiDocument): string {
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const out = new PageText();
  if (Object.keys(schemas).length === 0) out.push('The specification defines no models.', '');
  for (const [name, raw] of Object.entries(schemas)) {
    if (out.full) break;
    const schema = resolve(doc, raw) ?? {};
    out.push(`## ${name}`, '');
    if (text(schema.description)) out.push(text(schema.description).trim(), '');
    const { properties, required } = propertiesOf(doc, schema);
    if (properties.length > 0) {
      out.push('| Property | Type | Required | Description |', '| --- | --- | --- | --- |');
      for (const [property, propertySchema] of properties) {
        if (out.full) break;
        const description = isObject(propertySchema) ? text(propertySchema.description) : '';
        out.push(`| ${cell(property)} | ${code(schemaName(propertySchema))} | ${required.has(property) ? 'yes' : 'no'} | ${cell(description)} |`);
      }
      out.push('');
    } else {
      out.push(`Type: ${code(schemaName(schema))}`, '');
    }
    if (Array.isArray(schema.enum)) out.push(`Values: ${schema.enum.map((value) => code(String(value))).join(', ')}`, '');
  }
  return out.toString();
}

async function generate(ctx: ContentContext, revision: RevisionDoc, page: RevisionPageDoc): Promise<string> {
  const computed = page.computed;
  if (!computed || computed.type !== OPENAPI_COMPUTED_TYPE) return '';
  const ref = computed.dependencies.spec?.ref;
  const slug = typeof ref?.spec === 'string' ? ref.spec : '';
  const file = specFileOf(revision.files, slug);
  if (!file) return `> The OpenAPI specification ${code(slug)} is not in this content: upload it as a file named \`${slug}.yaml\` or \`${slug}.json\`.\n`;
  const parsed = await loadSpec(ctx, file);
  if (!parsed.ok) return `> The file ${code(file.name)} cannot be read as an OpenAPI specification: ${parsed.message}.\n`;
  if (computed.props.doc === 'models') return modelsMarkdown(parsed.doc);
  if (computed.props.doc === 'operations') return operationsMarkdown(parsed.doc, text(computed.props.page));
  return '';
}

/** Generated markdown of the computed pages among `pages` (page id → markdown). */
export async function computedPageBodies(ctx: ContentContext, revision: RevisionDoc, pages: Iterable<RevisionPageDoc>): Promise<Map<string, string>> {
  const bodies = new Map<string, string>();
  for (const page of pages) {
    if (!page.computed) continue;
    const key = `${revision._id}:${page.id}`;
    let markdown = ctx.caches.openApiPages.get(key);
    if (markdown === undefined) {
      markdown = await generate(ctx, revision, page);
      ctx.caches.openApiPages.set(key, markdown, markdown.length + 1);
    }
    bodies.set(page.id, markdown);
  }
  return bodies;
}
