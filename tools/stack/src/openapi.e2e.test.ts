import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import SwaggerParser from '@apidevtools/swagger-parser';
import { repoRoot } from '@quire/datastore';
import { sharedTestStack, type TestStack } from '@quire/testkit';
import specOperations from './spec-operations.json';

/**
 * GET /v1/openapi.json: the document each service makes from the routes it declares, merged by
 * the gateway — served without a token, valid OpenAPI 3.1, and covering every operation of the
 * spec (spec-operations.json: the spec's endpoint tables).
 */
describe('the API document through the gateway', () => {
  let stack: TestStack;
  let document: any;

  beforeAll(async () => {
    stack = await sharedTestStack();
    const response = await fetch(`${stack.baseUrl}/v1/openapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    document = await response.json();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('is a valid OpenAPI 3.1 document, served to callers without a token', async () => {
    assert.equal(document.openapi, '3.1.0');
    // The validator dereferences in place: it gets a copy.
    await SwaggerParser.validate(structuredClone(document));
    assert.deepEqual(document.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer', description: 'An API token (`qr_…`)' });
  });

  it('describes every operation of the spec that is served, with its path parameters', () => {
    const missing = specOperations.filter((op) => !document.paths[op.path]?.[op.method.toLowerCase()]).map((op) => `${op.method} ${op.path}`);
    assert.deepEqual(missing, [], 'operations of the spec missing from the document');
    for (const [path, operations] of Object.entries<any>(document.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries<any>(operations)) {
        const inPath = operation.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name);
        assert.deepEqual(inPath.sort(), [...names].sort(), `${method} ${path}: its path parameters`);
        assert.ok(operation.summary, `${method} ${path}: a summary`);
      }
    }
  });

  it('takes parameters and bodies from the schemas that validate them', () => {
    const createSpace = document.paths['/v1/orgs/{organizationId}/spaces'].post;
    const body = createSpace.requestBody.content['application/json'].schema;
    assert.equal(body.type, 'object');
    assert.ok(body.properties.title, 'the title a new space takes');
    const listSpaces = document.paths['/v1/orgs/{organizationId}/spaces'].get;
    const limit = listSpaces.parameters.find((p: any) => p.name === 'limit');
    assert.deepEqual({ in: limit.in, required: limit.required, max: limit.schema.maximum }, { in: 'query', required: false, max: 1000 });
    const acs = document.paths['/v1/public/saml/{samlProviderId}/acs'].post;
    assert.deepEqual(acs.security, [], 'public routes need no token');
    assert.ok(acs.requestBody.content['application/x-www-form-urlencoded'], 'the SAML post binding sends a form');
  });

  it("documents every operation's success answer: a body schema for 200, none for 204", () => {
    const undocumented: string[] = [];
    for (const [path, operations] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        // A 304 answers a revalidation (a route's alsoAnswers), beside the success it revalidates.
        if (operation.responses['304']) assert.equal(method, 'get', `${method} ${path}: only a GET answers 304`);
        const successes = Object.keys(operation.responses).filter((status) => /^[23]\d\d$/.test(status) && status !== '304');
        assert.equal(successes.length, 1, `${method} ${path}: one success status`);
        const [status] = successes;
        const { content } = operation.responses[status!];
        // A 201 may come without a body: applying a template (spec: "201, no content").
        if (status === '200' && !content) undocumented.push(`${method.toUpperCase()} ${path} ${status}`);
        if (status === '204') assert.equal(content, undefined, `${method} ${path}: a 204 has no body`);
        assert.deepEqual(operation.responses['4XX'].content['application/json'].schema, { $ref: '#/components/schemas/Error' });
      }
    }
    assert.deepEqual(undocumented, [], 'operations answering a body the document does not describe');
    const ok = (path: string, method: string) => document.paths[path][method].responses['200'].content['application/json'].schema;
    assert.deepEqual(ok('/v1/spaces/{spaceId}', 'get'), { $ref: '#/components/schemas/Space' });
    assert.deepEqual(ok('/v1/orgs/{organizationId}/spaces', 'get').properties.items, { type: 'array', items: { $ref: '#/components/schemas/Space' } });
    assert.deepEqual(document.paths['/v1/orgs/{organizationId}/spaces'].post.responses['201'].content['application/json'].schema, {
      $ref: '#/components/schemas/Space',
    });
    assert.deepEqual(document.components.schemas.Space.required.includes('defaultLevel'), true);
  });

  it('is the document kept in openapi/v1.json (npm run openapi), which lint compares with main and the last release', () => {
    const kept = JSON.parse(readFileSync(path.join(repoRoot(), 'openapi/v1.json'), 'utf8'));
    // The server aside (this stack's address), what the services serve is what the file promises.
    assert.deepEqual({ ...document, servers: kept.servers }, kept);
  });

  it('tags every operation with the service that serves it', () => {
    const tags = document.tags.map((t: any) => t.name);
    assert.deepEqual(tags, ['identity', 'content', 'publishing', 'integrations', 'insights']);
    const spaces = document.paths['/v1/spaces/{spaceId}'].get;
    assert.deepEqual(spaces.tags, ['content']);
    assert.deepEqual(document.paths['/v1/orgs/{organizationId}/members'].get.tags, ['identity']);
    assert.deepEqual(document.paths['/v1/orgs/{organizationId}/sites'].get.tags, ['publishing']);
  });
});
