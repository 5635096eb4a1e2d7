import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { contentConfigSchema, contentRoutes } from '@quire/content';
import { repoRoot } from '@quire/datastore';
import { mergeApiDocument, type ApiDocument } from '@quire/gateway';
import { openApiPart, type Route } from '@quire/http';
import { identityRoutes } from '@quire/identity';
import { insightsConfigSchema, insightsRoutes } from '@quire/insights';
import { integrationsConfigSchema, integrationsRoutes } from '@quire/integrations';
import { publishingConfigSchema, publishingRoutes } from '@quire/publishing';
import { backendConfigSchema, loadConfig } from '@quire/runtime';
import type { z } from 'zod';

/**
 * `npm run openapi`: writes the `/v1` API document (what the gateway serves at /v1/openapi.json)
 * to openapi/v1.json, keys sorted so that the file changes only when the API does. Lint checks
 * that the file is current (`--check`) and compares it with the one of main and of the last
 * release (scripts/check-breaking.sh): the committed file is what callers were promised.
 *
 * The parts are made in this process from each service's route list, as the services make them
 * on start (libs/http openApiPart): no datastore, no service running.
 */

const FILE = 'openapi/v1.json';

/** Each service's routes and the settings they are declared with. */
const SERVICES = [
  { service: 'identity', settings: backendConfigSchema, routes: identityRoutes },
  { service: 'content', settings: contentConfigSchema, routes: contentRoutes },
  { service: 'publishing', settings: publishingConfigSchema, routes: publishingRoutes },
  { service: 'integrations', settings: integrationsConfigSchema, routes: integrationsRoutes },
  { service: 'insights', settings: insightsConfigSchema, routes: insightsRoutes },
] as const satisfies ReadonlyArray<{ service: string; settings: z.ZodType; routes: (context: never) => Route[] }>;

/** The settings every service needs but that say nothing of the API: placeholders. */
const PLACEHOLDER_ENV = { INTERNAL_HMAC_SECRET: 'x'.repeat(32), INTEGRATIONS_SECRETS_KEY: 'x'.repeat(48), HTTP_PORT: '0', GRPC_PORT: '0' };

/**
 * What a route list is declared with: the service's settings (defaults) and a Redis for its rate
 * limiters, which use it only when a request comes. Anything else read while declaring fails
 * with the name of what was read: read it in the handler instead.
 */
function declarationContext(service: string, settings: z.ZodType): never {
  const known: Record<string, unknown> = { config: loadConfig(settings, PLACEHOLDER_ENV), redis: {} };
  return new Proxy(known, {
    get(target, key) {
      if (typeof key === 'symbol' || key in target) return target[key as string];
      throw new Error(`${service}'s routes read ctx.${key} while being declared: read it when a request comes (tools/stack api-document.ts)`);
    },
  }) as never;
}

function makeApiDocument(): ApiDocument {
  const parts = SERVICES.map(({ service, settings, routes }) => ({ service, ...openApiPart(routes(declarationContext(service, settings)), { tag: service }) }));
  return mergeApiDocument(parts, {
    publicBaseUrl: loadConfig(backendConfigSchema, PLACEHOLDER_ENV).PUBLIC_BASE_URL,
    leftOut: (service, operation) => console.warn(`${operation} (${service}) is left out: the gateway's route table does not send it to ${service}`),
  });
}

/** The JSON text of a value with every object's keys in order (arrays keep theirs). */
function stableJson(value: unknown): string {
  const sorted = (inner: unknown): unknown => {
    if (Array.isArray(inner)) return inner.map(sorted);
    if (!inner || typeof inner !== 'object') return inner;
    return Object.fromEntries(
      Object.keys(inner)
        .sort()
        .map((key) => [key, sorted((inner as Record<string, unknown>)[key])]),
    );
  };
  return `${JSON.stringify(sorted(value), null, 2)}\n`;
}

function main() {
  const file = path.join(repoRoot(), FILE);
  const text = stableJson(makeApiDocument());
  if (!process.argv.includes('--check')) {
    writeFileSync(file, text);
    console.log(`wrote ${FILE}`);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // Missing: reported below as not current.
  }
  if (committed !== text) {
    console.error(`${FILE} is not the API document the code makes: run \`npm run openapi\` and commit the file`);
    process.exit(1);
  }
}

main();
