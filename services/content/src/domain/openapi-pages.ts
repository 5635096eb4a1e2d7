import { parse as parseYaml } from 'yaml';
import type { FileBlobDoc, RevisionDoc, RevisionFileDoc, RevisionPageDoc } from '../db/revisions';
import type { ContentContext } from './context';
import { LruCache } from './lru';

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

/** The slug of a specification file: its name without the extension. */
export function specSlugOf(fileName: string): string {
  return fileName.replace(/\.[^.]*$/, '');
}

/** The file holding specification `slug` (the latest uploaded when several share the name). */
export function specFileOf(files: readonly RevisionFileDoc[], slug: string): RevisionFileDoc | undefined {
  return [...files].reverse().find((file) => specSlugOf(file.name) === slug);
}

export type ParsedSpec = { ok: true; doc: OpenApiDocument } | { ok: false; message: string };

/** Parses a JSON or YAML OpenAPI 3.x document; the message says why it is not one. */
export function parseOpenApi(source: string): ParsedSpec {
  let doc: unknown;
  try {
    // Aliases are bounded: a small file must not expand into a huge document.
    doc = parseYaml(source, { maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, message: `it does not parse as JSON or YAML (${(error as Error).message.split('\n')[0]})` };
  }
  if (!isObject(doc)) return { ok: false, message: 'it is not an OpenAPI document (not an object)' };
  if (typeof doc.openapi !== 'string' || !/^3\.\d+/.test(doc.openapi)) return { ok: false, message: 'it is not an OpenAPI 3.x document (no `openapi: 3.x` field)' };
  if (doc.paths !== undefined && !isObject(doc.paths)) return { ok: false, message: 'its `paths` is not an object' };
  return { ok: true, doc: doc as OpenApiDocument };
}

// Parsed documents by blob hash (content-addressed: the same bytes parse the same).
const specCache = new LruCache<ParsedSpec>(64 * 1024 * 1024);

export async function loadSpec(ctx: ContentContext, file: RevisionFileDoc): Promise<ParsedSpec> {
  const cached = specCache.get(file.blobHash);
  if (cached) return cached;
  const blob = await ctx.models.FileBlob.findById(file.blobHash).lean<FileBlobDoc>();
  if (!blob) return { ok: false, message: 'its bytes are missing' };
  const data = Buffer.isBuffer(blob.data) ? blob.data : Buffer.from((blob.data as unknown as { buffer: ArrayBuffer }).buffer);
  const parsed = parseOpenApi(data.toString('utf8'));
  specCache.set(file.blobHash, parsed, data.length);
  return parsed;
}

/** Follows local `$ref`s (`#/components/...`); null when one does not resolve. */
function resolve(doc: OpenApiDocument, value: unknown, depth = 0): Json | null {
  if (!isObject(value)) return null;
  if (typeof value.$ref !== 'string') return value;
  if (depth > 10 || !value.$ref.startsWith('#/')) return null;
  let target: unknown = doc;
  for (const raw of value.$ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) && Object.hasOwn(target, key) ? target[key] : undefined;
  }
  return resolve(doc, target, depth + 1);
}

/** A schema's name as the pages show it: `Pet`, `Pet[]`, `string (date-time)`, `Cat | Dog`. */
export function schemaName(schema: unknown, depth = 0): string {
  if (!isObject(schema) || depth > 8) return 'any';
  if (typeof schema.$ref === 'string') return decodeURIComponent(schema.$ref.split('/').pop() ?? '').replace(/~1/g, '/').replace(/~0/g, '~') || 'any';
  for (const [key, joiner] of [['oneOf', ' | '], ['anyOf', ' | '], ['allOf', ' & ']] as const) {
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
  return value.replace(/\r?\n+/g, ' ').replace(/\|/g, '\\|').trim();
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
  const lines = [`# ${text(info.title) || 'API Reference'}`, ''];
  if (info.version !== undefined) lines.push(`Version ${code(String(info.version))}`, '');
  if (text(info.description)) lines.push(text(info.description).trim(), '');
  const servers = Array.isArray(doc.servers) ? doc.servers.filter(isObject) : [];
  if (servers.length > 0) {
    lines.push('## Servers', '');
    for (const server of servers) lines.push(`- ${code(text(server.url))}${text(server.description) ? ` — ${cell(text(server.description))}` : ''}`);
    lines.push('');
  }
  lines.push('The pages below are generated from the specification: they follow it whenever the file changes.', '');
  return lines.join('\n');
}

function parametersSection(doc: OpenApiDocument, op: Operation): string[] {
  // Operation parameters override path-level ones with the same name and location.
  const byKey = new Map<string, Json>();
  for (const raw of [...(Array.isArray(op.pathItem.parameters) ? op.pathItem.parameters : []), ...(Array.isArray(op.operation.parameters) ? op.operation.parameters : [])]) {
    const parameter = resolve(doc, raw);
    if (parameter) byKey.set(`${text(parameter.in)}:${text(parameter.name)}`, parameter);
  }
  if (byKey.size === 0) return [];
  const lines = ['### Parameters', '', '| Name | In | Type | Required | Description |', '| --- | --- | --- | --- | --- |'];
  for (const parameter of byKey.values()) {
    const required = parameter.required === true || parameter.in === 'path';
    lines.push(`| ${cell(text(parameter.name))} | ${cell(text(parameter.in))} | ${code(schemaName(parameter.schema))} | ${required ? 'yes' : 'no'} | ${cell(text(parameter.description))} |`);
  }
  lines.push('');
  return lines;
}

function contentList(content: unknown): string {
  if (!isObject(content)) return '';
  return Object.entries(content)
    .map(([type, media]) => `${code(type)}: ${code(schemaName(isObject(media) ? media.schema : undefined))}`)
    .join(', ');
}

function requestBodySection(doc: OpenApiDocument, op: Operation): string[] {
  const body = resolve(doc, op.operation.requestBody);
  if (!body) return [];
  const lines = ['### Request body', ''];
  if (text(body.description)) lines.push(text(body.description).trim(), '');
  lines.push(`${contentList(body.content) || 'No content described.'}${body.required === true ? ' (required)' : ''}`, '');
  return lines;
}

function responsesSection(doc: OpenApiDocument, op: Operation): string[] {
  const responses = isObject(op.operation.responses) ? op.operation.responses : {};
  if (Object.keys(responses).length === 0) return [];
  const lines = ['### Responses', '', '| Status | Description | Content |', '| --- | --- | --- |'];
  for (const [status, raw] of Object.entries(responses)) {
    const response = resolve(doc, raw) ?? {};
    lines.push(`| ${cell(status)} | ${cell(text(response.description))} | ${cell(contentList(response.content))} |`);
  }
  lines.push('');
  return lines;
}

/** Markdown of the operations tagged `tag`. */
export function operationsMarkdown(doc: OpenApiDocument, tag: string): string {
  const declared = specTags(doc).find((candidate) => candidate.name === tag);
  const lines: string[] = [];
  if (declared?.description) lines.push(declared.description.trim(), '');
  const operations = operationsOf(doc).filter((op) => tagsOfOperation(op.operation).includes(tag));
  if (operations.length === 0) lines.push(`No operation of the specification has the tag ${code(tag)}.`, '');
  for (const op of operations) {
    lines.push(`## ${op.method.toUpperCase()} ${op.path}`, '');
    if (op.operation.deprecated === true) lines.push('> **Deprecated.**', '');
    if (text(op.operation.summary)) lines.push(`**${text(op.operation.summary).trim()}**`, '');
    if (text(op.operation.description)) lines.push(text(op.operation.description).trim(), '');
    if (text(op.operation.operationId)) lines.push(`Operation ID: ${code(text(op.operation.operationId))}`, '');
    lines.push(...parametersSection(doc, op), ...requestBodySection(doc, op), ...responsesSection(doc, op));
  }
  return lines.join('\n');
}

/** Properties of an object schema, including those of its allOf parts. */
function propertiesOf(doc: OpenApiDocument, schema: Json, depth = 0): { properties: Array<[string, unknown]>; required: Set<string> } {
  const properties: Array<[string, unknown]> = isObject(schema.properties) ? Object.entries(schema.properties) : [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
  if (Array.isArray(schema.allOf) && depth < 8) {
    for (const part of schema.allOf) {
      const resolved = resolve(doc, part);
      if (!resolved) continue;
      const inner = propertiesOf(doc, resolved, depth + 1);
      properties.push(...inner.properties);
      for (const name of inner.required) required.add(name);
    }
  }
  return { properties, required };
}

/** Markdown of every schema in components.schemas. */
export function modelsMarkdown(doc: OpenApiDocument): string {
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const lines: string[] = [];
  if (Object.keys(schemas).length === 0) lines.push('The specification defines no models.', '');
  for (const [name, raw] of Object.entries(schemas)) {
    const schema = resolve(doc, raw) ?? {};
    lines.push(`## ${name}`, '');
    if (text(schema.description)) lines.push(text(schema.description).trim(), '');
    const { properties, required } = propertiesOf(doc, schema);
    if (properties.length > 0) {
      lines.push('| Property | Type | Required | Description |', '| --- | --- | --- | --- |');
      for (const [property, propertySchema] of properties) {
        const description = isObject(propertySchema) ? text(propertySchema.description) : '';
        lines.push(`| ${cell(property)} | ${code(schemaName(propertySchema))} | ${required.has(property) ? 'yes' : 'no'} | ${cell(description)} |`);
      }
      lines.push('');
    } else {
      lines.push(`Type: ${code(schemaName(schema))}`, '');
    }
    if (Array.isArray(schema.enum)) lines.push(`Values: ${schema.enum.map((value) => code(String(value))).join(', ')}`, '');
  }
  return lines.join('\n');
}

// Generated markdown by (revision, page): revisions are immutable, so it never goes stale.
const pageCache = new LruCache<string>(32 * 1024 * 1024);

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
    let markdown = pageCache.get(key);
    if (markdown === undefined) {
      markdown = await generate(ctx, revision, page);
      pageCache.set(key, markdown, markdown.length + 1);
    }
    bodies.set(page.id, markdown);
  }
  return bodies;
}
