import type { Logger } from '@quire/runtime';
import { httpUrlsOf, SERVICES, type GatewayConfig, type ServiceName } from './config';
import { routeFor } from './routes';

type Operations = Record<string, Record<string, unknown>>;
export type ApiDocument = Record<string, unknown> & { paths: Record<string, Operations> };

/** `/v1/spaces/{spaceId}` → `/v1/spaces/x`: a concrete path the route table can be asked about. */
const concretePath = (path: string) => path.replace(/\{[^}]+\}/g, 'x');

/** One service's part of the document (`GET /openapi.json` on the service: libs/http openApiPart). */
export interface ApiDocumentPart {
  service: ServiceName;
  paths: Record<string, Operations>;
  schemas: Record<string, unknown>;
}

/**
 * Quire's OpenAPI 3.1 document from the services' parts and the gateway's route table. An
 * operation the table sends elsewhere is left out (and reported to `leftOut`): the document
 * describes what callers can reach. The gateway serves it; `npm run openapi` writes it to the
 * repository, where lint compares it with the last release's.
 */
export function mergeApiDocument(
  parts: readonly ApiDocumentPart[],
  options: { publicBaseUrl: string; leftOut: (service: ServiceName, path: string) => void },
): ApiDocument {
  const paths: Record<string, Operations> = {};
  const schemas: Record<string, unknown> = {};
  for (const { service, paths: servicePaths, schemas: serviceSchemas } of parts) {
    for (const [name, schema] of Object.entries(serviceSchemas)) {
      // Every service takes its objects from the same contract: one name, one schema.
      if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema)) throw new Error(`${service} describes ${name} unlike another service`);
      schemas[name] = schema;
    }
    for (const [path, operations] of Object.entries(servicePaths)) {
      const route = routeFor(concretePath(path));
      if (route?.service !== service) {
        options.leftOut(service, path);
        continue;
      }
      paths[path] = { ...paths[path], ...operations };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Quire API',
      version: '1',
      description: 'The documentation platform management API: spaces, content, change requests, sites, organizations.',
    },
    servers: [{ url: options.publicBaseUrl }],
    security: [{ bearer: [] }],
    tags: SERVICES.map((name) => ({ name })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API token (`qr_…`)' } },
      schemas: {
        ...schemas,
        Error: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } } },
        },
      },
    },
  };
}

/** The document the gateway serves: each service's part asked for over HTTP, merged once every service has answered. */
export function createApiDocument(config: GatewayConfig, logger: Logger): () => Promise<ApiDocument> {
  let document: ApiDocument | undefined;
  let pending: Promise<ApiDocument> | undefined;

  async function build(): Promise<ApiDocument> {
    const parts = await Promise.all(SERVICES.map(async (service) => ({ service, ...(await partOf(config, service)) })));
    return mergeApiDocument(parts, {
      publicBaseUrl: config.PUBLIC_BASE_URL,
      leftOut: (service, path) => logger.warn({ service, path }, 'an operation the route table does not send to its service is left out of the API document'),
    });
  }

  // The parts change only with a deploy: made once, when every service has answered.
  return async () => {
    if (document) return document;
    pending ??= build().finally(() => (pending = undefined));
    document = await pending;
    return document;
  };
}

/** A service's part, from the first of its replicas that gives it (they all run the same code). */
async function partOf(config: GatewayConfig, service: ServiceName): Promise<Omit<ApiDocumentPart, 'service'>> {
  let failure: Error | undefined;
  for (const url of httpUrlsOf(config, service)) {
    try {
      const response = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`${service} answered ${response.status} for its API document part`);
      return (await response.json()) as Omit<ApiDocumentPart, 'service'>;
    } catch (error) {
      failure = error as Error;
    }
  }
  throw failure!;
}
