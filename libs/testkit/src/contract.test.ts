import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient } from './api';
import { checkAnswersOf } from './contract';

/** Two operations, an error component, and the answers of a fake Quire per path. */
const error = { $ref: '#/components/schemas/Error' };
const thing = {
  type: 'object',
  required: ['id', 'count'],
  properties: { id: { type: 'string' }, count: { type: 'integer' } },
  additionalProperties: false,
};
const paths = {
  '/v1/things/{thingId}': {
    get: {
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: thing } } },
        '4XX': { description: 'error', content: { 'application/json': { schema: error } } },
      },
    },
    delete: { responses: { '204': { description: 'No content' } } },
  },
  '/v1/things/{thingId}/content/path/{pagePath}': {
    get: { responses: { '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object', required: ['path'] } } } } } },
  },
  '/v1/things/{thingId}/file': {
    get: { responses: { '200': { description: 'OK', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } } } },
  },
  '/v1/things/{thingId}/icon': {
    get: { responses: { '200': { description: 'OK', content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } } } },
  },
};
const errorSchema = { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message'] } } };
const document = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths, components: { schemas: { Error: errorSchema } } };

const JSON_TYPE = 'application/json';
const notFound = { status: 404, type: JSON_TYPE, body: { error: { code: 404, message: 'Not found' } } };
const answers: Record<string, { status: number; type?: string; body?: unknown }> = {
  'GET /v1/things/good': { status: 200, type: JSON_TYPE, body: { id: 'good', count: 1 } },
  'GET /v1/things/extra': { status: 200, type: JSON_TYPE, body: { id: 'extra', count: 1, secret: true } },
  'GET /v1/things/wrong-type': { status: 200, type: JSON_TYPE, body: { id: 'x', count: '1' } },
  'GET /v1/things/created': { status: 201, type: JSON_TYPE, body: { id: 'x', count: 1 } },
  'GET /v1/things/missing': notFound,
  'GET /v1/things/bad-error': { status: 404, type: JSON_TYPE, body: { message: 'Not found' } },
  'GET /v1/things/wrong-code': { status: 404, type: JSON_TYPE, body: { error: { code: 400, message: 'Not found' } } },
  'GET /v1/things/text-error': { status: 404, type: 'text/html', body: '<p>Not found</p>' },
  'DELETE /v1/things/good': { status: 204 },
  'DELETE /v1/things/with-body': { status: 200, type: JSON_TYPE, body: { id: 'x', count: 1 } },
  'GET /v1/things/good/content/path/a/b/c': { status: 200, type: JSON_TYPE, body: { path: 'a/b/c' } },
  'GET /v1/things/good/file': { status: 200, type: 'application/pdf', body: '%PDF' },
  'GET /v1/things/good/icon': { status: 200, type: 'image/png', body: 'png' },
  'GET /v1/things/text/icon': { status: 200, type: 'text/plain', body: 'png' },
  'GET /v1/nothing-here': { status: 200, type: JSON_TYPE, body: {} },
  'GET /nowhere': { status: 404, type: 'text/html', body: '<p>Cannot GET /nowhere</p>' },
  'GET /healthz': { status: 200, type: JSON_TYPE, body: { status: 'ok' } },
  'GET /docs': { status: 200, type: 'text/html; charset=utf-8', body: '<!doctype html>' },
  'GET /docs/init.js': { status: 200, type: 'text/html', body: '<!doctype html>' },
  'GET /sites/o/s/': { status: 200, type: 'text/html; charset=utf-8', body: '<!doctype html>' },
  'GET /sites/o/s/robots.txt': { status: 200, type: 'text/plain; charset=utf-8', body: 'User-agent: *' },
  'GET /sites/o/s/sitemap.xml': { status: 200, type: 'text/html', body: '<!doctype html>' },
  'GET /sites/o/s/missing': { status: 404, type: JSON_TYPE, body: { error: { code: 404, message: 'Not found' } } },
  'GET /sites/o/s/guide': { status: 200, type: JSON_TYPE, body: { title: 'Guide' } },
  'GET /sites/o%00/s': { status: 400, type: JSON_TYPE, body: { error: { code: 400, message: 'Invalid params: org' } } },
};

/** A fake gateway (document at /v1/openapi.json), service (its part at /openapi.json, request ids) or another server. */
function fakeServer(kind: 'gateway' | 'service' | 'other'): Server {
  return createServer((req, res) => {
    const path = req.url!.split('?')[0];
    if (kind === 'service') res.setHeader('x-request-id', 'r1');
    if (kind === 'gateway' && path === '/v1/openapi.json') return void res.writeHead(200, { 'content-type': JSON_TYPE }).end(JSON.stringify(document));
    if (kind === 'service' && path === '/openapi.json')
      return void res.writeHead(200, { 'content-type': JSON_TYPE }).end(JSON.stringify({ paths, schemas: {} }));
    // A redirect to the address after `to/`, as the next request's.
    if (path.startsWith('/to/')) return void res.writeHead(302, { location: path.slice('/to'.length) }).end();
    const answer = answers[`${req.method} ${path}`] ?? notFound;
    res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {});
    res.end(answer.body === undefined ? undefined : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  });
}

const servers: Server[] = [];
const urls: Record<'gateway' | 'service' | 'other', string> = { gateway: '', service: '', other: '' };

beforeAll(async () => {
  for (const kind of ['gateway', 'service', 'other'] as const) {
    const server = fakeServer(kind);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls[kind] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  checkAnswersOf(urls.gateway);
});

afterAll(() => Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))));

describe('answers checked against what Quire says it answers, on every fetch of a test', () => {
  it('lets documented answers through: a valid body, a documented error, a bodiless 204, a page path, media ranges', async () => {
    const api = apiClient(urls.gateway);
    assert.equal((await api.get('/v1/things/good?x=1')).status, 200);
    assert.equal((await api.get('/v1/things/missing')).status, 404);
    assert.equal((await api.delete('/v1/things/good')).status, 204);
    assert.equal((await api.get('/v1/things/good/content/path/a/b/c')).body.path, 'a/b/c');
    assert.equal((await api.get('/v1/things/good/file')).status, 200);
    assert.equal((await api.get('/v1/things/good/icon')).status, 200);
  });

  it('fails on an undeclared field, a wrong type, an undocumented status, an unexpected body, a media type out of range', async () => {
    const api = apiClient(urls.gateway);
    await assert.rejects(api.get('/v1/things/extra'), /unlike what Quire says it answers: .*must NOT have additional properties/);
    await assert.rejects(api.get('/v1/things/wrong-type'), /\/count must be integer/);
    await assert.rejects(api.get('/v1/things/created'), /documents 200, 4XX only/);
    await assert.rejects(api.delete('/v1/things/with-body'), /documents 204 only/);
    await assert.rejects(api.get('/v1/things/text/icon'), /its media type text\/plain is not image\/\*/);
  });

  it('fails on an error that is not the standard body with its own status, and on a success from an address no operation has', async () => {
    const api = apiClient(urls.gateway);
    await assert.rejects(api.get('/v1/things/bad-error'), /not the standard error body: .*must have required property 'error'/);
    await assert.rejects(api.get('/v1/things/wrong-code'), /the error body's code is 400/);
    await assert.rejects(api.get('/v1/things/text-error'), /not the standard error body: its media type is text\/html/);
    await assert.rejects(api.get('/v1/nothing-here'), /no operation of the document/);
    // Outside /v1 too: an unknown address answers the standard error body.
    await assert.rejects(api.get('/nowhere'), /GET \/nowhere answered 404, .*not the standard error body/);
    assert.equal((await api.get('/v1/nowhere/else')).status, 404);
  });

  it('checks the media types of what the document leaves out: health, the reference page, published sites', async () => {
    const api = apiClient(urls.gateway);
    assert.equal((await api.get('/healthz')).status, 200);
    assert.equal((await api.get('/docs')).status, 200);
    await assert.rejects(api.get('/docs/init.js'), /its media type text\/html is not application\/javascript or text\/javascript/);
    assert.equal((await api.get('/sites/o/s/')).status, 200);
    assert.equal((await api.get('/sites/o/s/robots.txt')).status, 200);
    await assert.rejects(api.get('/sites/o/s/sitemap.xml'), /is not application\/xml/);
    await assert.rejects(api.get('/sites/o/s/guide'), /its media type application\/json is not text\/html/);
    // A site's missing page is a page; bad input to the route is the standard error.
    await assert.rejects(api.get('/sites/o/s/missing'), /is not text\/html/);
    assert.equal((await api.get('/sites/o%00/s')).status, 400);
  });

  it("checks a test's own fetch the same way, whatever it asks", async () => {
    assert.equal((await fetch(`${urls.gateway}/v1/things/good`)).status, 200);
    await assert.rejects(fetch(`${urls.gateway}/v1/things/extra`), /must NOT have additional properties/);
    await assert.rejects(fetch(new URL('/sites/o/s/guide', urls.gateway)), /is not text\/html/);
    // A redirect followed: the answer is judged where it ended.
    assert.equal((await fetch(`${urls.gateway}/to/v1/things/good`)).status, 200);
    await assert.rejects(fetch(`${urls.gateway}/to/v1/things/extra`), /GET \/v1\/things\/extra answered 200, .*must NOT have additional properties/);
  });

  it("checks a service a test runs itself, known by its request ids, against its part of the document; not another server's answers", async () => {
    const service = apiClient(urls.service);
    assert.equal((await service.get('/v1/things/good')).status, 200);
    await assert.rejects(service.get('/v1/things/extra'), /must NOT have additional properties/);
    await assert.rejects(service.get('/nowhere'), /not the standard error body/);
    const other = apiClient(urls.other);
    assert.equal((await other.get('/v1/things/extra')).status, 200);
    assert.equal((await other.get('/nowhere')).status, 404);
  });
});
