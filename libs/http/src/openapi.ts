import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Route } from './routes';

type JsonSchema = Record<string, unknown>;

/** The OpenAPI path of an express path: `/v1/spaces/:spaceId` → `/v1/spaces/{spaceId}`, a wildcard `*pagePath` → `{pagePath}`. */
export function openApiPath(path: string): string {
  return path.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Collects the shared definitions of recursive schemas (zod puts them in `$defs`, referred to
 * from the schema's own root): in an OpenAPI document they live in `components.schemas`, named
 * by their content so the same definition is kept once.
 */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};
  constructor(private readonly prefix: string) {}

  /** What a caller sends, as JSON Schema 2020-12 (the dialect of OpenAPI 3.1): the input side of transforms and defaults. */
  input(schema: z.ZodType): JsonSchema {
    return this.hoist(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
  }

  /** What the service answers: the output side. */
  output(schema: z.ZodType): JsonSchema {
    return this.hoist(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema);
  }

  /**
   * Moves `$defs` to `components.schemas`: a definition with an id (`.meta({ id: 'Space' })`)
   * keeps it as its name, an anonymous one (a recursive schema) is named by its content.
   * The same name must always mean the same schema.
   */
  private hoist(json: JsonSchema): JsonSchema {
    const { $schema: _dialect, $defs, ...rest } = json as JsonSchema & { $defs?: Record<string, JsonSchema> };
    if (!$defs) return rest;
    const names = new Map<string, string>();
    for (const [local, definition] of Object.entries($defs)) {
      const anonymous = local.startsWith('__schema');
      const digest = createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 10);
      names.set(local, anonymous ? `${this.prefix}_${digest}` : local);
    }
    const relink = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(relink);
      if (!value || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) =>
          key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
            ? [key, `#/components/schemas/${names.get(inner.slice('#/$defs/'.length))}`]
            : [key, relink(inner)],
        ),
      );
    };
    for (const [local, definition] of Object.entries($defs)) {
      const name = names.get(local)!;
      const linked = relink(definition) as JsonSchema;
      const known = this.schemas[name];
      if (known && JSON.stringify(known) !== JSON.stringify(linked)) throw new Error(`two different schemas are named ${name}`);
      this.schemas[name] = linked;
    }
    return relink(rest) as JsonSchema;
  }
}

/** Path or query parameters of an object schema, one OpenAPI parameter per property. */
function parameters(components: SchemaComponents, schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = components.input(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const ERROR_RESPONSE = { description: 'The standard error body', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

const DESCRIPTIONS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 302: 'Redirect' };

/** The success answer: its JSON body, a non-JSON body (a file), or nothing. */
function success(components: SchemaComponents, route: Route): JsonSchema {
  const description = DESCRIPTIONS[route.status];
  if (route.response) return { description, content: { 'application/json': { schema: components.output(route.response) } } };
  if (route.produces) return { description, content: { [route.produces]: { schema: { type: 'string', format: 'binary' } } } };
  return { description };
}

/**
 * A service's part of the OpenAPI document: the `paths` of its routes: parameters and request bodies from the very zod
 * schemas that validate them, response bodies from the contract schemas the tests check answers against, so the document cannot drift from the code.
 */
export function openApiPart(
  routes: readonly Route[],
  options: { tag: string },
): { paths: Record<string, Record<string, JsonSchema>>; schemas: Record<string, JsonSchema> } {
  const components = new SchemaComponents(options.tag);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (route.website) continue;
    const path = openApiPath(route.path);
    const operation: JsonSchema = {
      summary: route.summary,
      tags: [options.tag],
      ...(route.access === 'public' ? { security: [] } : {}),
      parameters: [...parameters(components, route.params, 'path'), ...parameters(components, route.query, 'query')],
      ...(route.body ? { requestBody: { required: true, content: { [route.consumes ?? 'application/json']: { schema: components.input(route.body) } } } } : {}),
      responses: {
        [String(route.status)]: success(components, route),
        ...Object.fromEntries(Object.entries(route.alsoAnswers ?? {}).map(([status, description]) => [status, { description }])),
        '4XX': ERROR_RESPONSE,
        '5XX': ERROR_RESPONSE,
      },
    };
    (paths[path] ??= {})[route.method] = operation;
  }
  return { paths, schemas: components.schemas };
}
