import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient } from './api';
import { checkAnswersOf } from './contract';

/** A server with a two-operation API document whose answers are set per path. */
const error = { $ref: '#/components/schemas/Error' };
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things/{thingId}': {
      get: {
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'count'],
                  properties: { id: { type: 'string' }, count: { type: 'integer' } },
                  additionalProperties: false,
                },
              },
            },
          },
          '4XX': { description: 'error', content: { 'application/json': { schema: error } } },
        },
      },
      delete: { responses: { '204': { description: 'No content' } } },
    },
    '/v1/things/{thingId}/content/path/{pagePath}': {
      get: { responses: { '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object', required: ['path'] } } } } } },
    },
  },
  components: {
    schemas: { Error: { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message'] } } } },
  },
};

const answers: Record<string, { status: number; body?: unknown }> = {
  'GET /v1/things/good': { status: 200, body: { id: 'good', count: 1 } },
  'GET /v1/things/extra': { status: 200, body: { id: 'extra', count: 1, secret: true } },
  'GET /v1/things/wrong-type': { status: 200, body: { id: 'x', count: '1' } },
  'GET /v1/things/created': { status: 201, body: { id: 'x', count: 1 } },
  'GET /v1/things/missing': { status: 404, body: { error: { code: 404, message: 'Not found' } } },
  'GET /v1/things/bad-error': { status: 404, body: { message: 'Not found' } },
  'DELETE /v1/things/good': { status: 204 },
  'DELETE /v1/things/with-body': { status: 200, body: { id: 'x', count: 1 } },
  'GET /v1/things/good/content/path/a/b/c': { status: 200, body: { path: 'a/b/c' } },
  'GET /v1/nothing-here': { status: 200, body: {} },
};

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/v1/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    const answer = answers[`${req.method} ${req.url!.split('?')[0]}`] ?? { status: 404, body: { error: { code: 404, message: 'Not found' } } };
    res.writeHead(answer.status, answer.body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  checkAnswersOf(baseUrl);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("answers checked against the stack's API document", () => {
  it('lets documented answers through: a valid body, a documented error, a bodiless 204, a page path', async () => {
    const api = apiClient(baseUrl);
    assert.equal((await api.get('/v1/things/good?x=1')).status, 200);
    assert.equal((await api.get('/v1/things/missing')).status, 404);
    assert.equal((await api.delete('/v1/things/good')).status, 204);
    assert.equal((await api.get('/v1/things/good/content/path/a/b/c')).body.path, 'a/b/c');
  });

  it('fails on an undeclared field, a wrong type, an undocumented status and an unexpected body', async () => {
    const api = apiClient(baseUrl);
    await assert.rejects(api.get('/v1/things/extra'), /unlike Quire's API document: .*must NOT have additional properties/);
    await assert.rejects(api.get('/v1/things/wrong-type'), /\/count must be integer/);
    await assert.rejects(api.get('/v1/things/created'), /documents 200, 4XX only/);
    await assert.rejects(api.delete('/v1/things/with-body'), /documents 204 only/);
  });

  it('fails on an error body that is not the standard one, and on a success from an address no operation has', async () => {
    const api = apiClient(baseUrl);
    await assert.rejects(api.get('/v1/things/bad-error'), /must have required property 'error'/);
    await assert.rejects(api.get('/v1/nothing-here'), /no operation of the document/);
  });

  it('checks nothing for a server that is not a registered stack', async () => {
    const unchecked = apiClient(baseUrl.replace('127.0.0.1', 'localhost'));
    assert.equal((await unchecked.get('/v1/things/extra')).status, 200);
  });
});
