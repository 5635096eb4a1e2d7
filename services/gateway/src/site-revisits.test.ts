import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { freePort } from '@quire/datastore';
import { publishing } from '@quire/proto';
import {
  createGrpcServer,
  createLogger,
  createRedis,
  documentTag,
  encodeSharedAnswer,
  GrpcError,
  grpcStatus,
  publishInvalidation,
  SHARED_ANSWER_HEADER,
  type GrpcServerHandle,
  type RedisClient,
} from '@quire/runtime';
import { cleanupTestEnvironment, testBackendConfig, testEnvironment, waitFor, type TestEnvironment } from '@quire/testkit';
import { startGateway } from './service';
import { gatewayConfigBeforeIdentity } from './test-config';

/*
 * The revisits of published pages the gateway answers itself (site-revisits.ts), on the real
 * Redis: publishing's part is played by a server that answers as publishing does (a 304 naming
 * its tags) and counts what reaches it, and by a gRPC server taking the views the gateway
 * records. Published sites end to end, with the real publishing: published-sites.e2e.test.ts.
 */

const SITE_TAG = documentTag('publishing.site_versions', 'site-1');
const SPACE_TAG = documentTag('test_content.spaces', 'space-1');
const VIEW = { organizationId: 'org-1', siteId: 'site-1', siteSpaceId: 'ss-1', spaceId: 'space-1', pageId: 'page-1', url: 'http://docs.test/install' };
const ETAG = '"v1"';

describe('revisits of published pages, answered at the gateway', () => {
  let env: TestEnvironment;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let redis: RedisClient;
  let site: Server;
  let grpc: GrpcServerHandle;
  /** What reached the stand-in publishing: each request's path and headers. */
  const reached: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const recorded: publishing.SiteView[] = [];

  /** As publishing answers: a 304 for the page's ETag (told shared, or not, or with a cookie, as the path says), else the page. */
  function answer(path: string, headers: IncomingHttpHeaders): { status: number; headers: Record<string, string> } {
    const page = { etag: ETAG, 'cache-control': 'public, max-age=0, must-revalidate', 'content-security-policy': "default-src 'none'" };
    const shared = encodeSharedAnswer({ tags: [SITE_TAG, SPACE_TAG], ...(path.endsWith('.md') ? {} : { view: VIEW }) });
    if (headers['if-none-match'] !== ETAG) return { status: 200, headers: { ...page, [SHARED_ANSWER_HEADER]: shared } };
    if (path.includes('/private/')) return { status: 304, headers: page };
    if (path.includes('/cookie/')) return { status: 304, headers: { ...page, [SHARED_ANSWER_HEADER]: shared, 'set-cookie': 'a=b' } };
    return { status: 304, headers: { ...page, [SHARED_ANSWER_HEADER]: shared } };
  }

  const visit = (path: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${gateway.port}${path}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  const reachedFor = (path: string) => reached.filter((request) => request.path === path).length;

  beforeAll(async () => {
    env = await testEnvironment();
    const backend = testBackendConfig(env);
    site = createServer((req, res) => {
      reached.push({ path: req.url ?? '', headers: req.headers });
      const { status, headers } = answer(req.url ?? '', req.headers);
      res.writeHead(status, headers).end(status === 200 ? '<p>page</p>' : undefined);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const logger = createLogger('site-revisits-test', 'silent');
    grpc = createGrpcServer({ host: '127.0.0.1', port: await freePort(), secret: backend.INTERNAL_HMAC_SECRET, logger });
    // Publishing's other methods are not called here.
    const unimplemented = () => Promise.reject(new GrpcError(grpcStatus.UNIMPLEMENTED, 'not in this test'));
    const others = Object.fromEntries(Object.keys(publishing.PublishingServiceDefinition.methods).map((name) => [name, unimplemented]));
    grpc.add(publishing.PublishingServiceDefinition, {
      ...(others as unknown as publishing.PublishingServiceImplementation),
      recordSiteViews: async (request: publishing.RecordSiteViewsRequest) => {
        recorded.push(...request.views);
        return { recordedCount: request.views.length };
      },
    });
    const grpcPort = await grpc.listen();
    const down = await freePort();
    const config = await gatewayConfigBeforeIdentity(
      backend,
      { httpPort: down, grpcPort: down },
      {
        PUBLISHING_HTTP_URL: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
        PUBLISHING_GRPC_ADDR: `127.0.0.1:${grpcPort}`,
      },
    );
    gateway = await startGateway(config, { handleSignals: false });
    redis = createRedis(config, logger);
  });

  afterAll(async () => {
    await gateway.stop();
    await grpc.shutdown();
    await new Promise((resolve) => site.close(resolve));
    redis.disconnect();
    await cleanupTestEnvironment(env);
  });

  it('answers a revisit publishing said every visitor gets alike, counts its view, and forgets it when one of its tags is invalidated', async () => {
    const path = '/sites/acme/docs/install';
    const first = await visit(path);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get(SHARED_ANSWER_HEADER), null, 'what publishing tells the gateway is taken off');

    // The first revisit goes to publishing, which names the visitor's address (not one the visitor sent).
    const revisit = {
      'if-none-match': ETAG,
      'user-agent': 'revisiting-browser',
      'accept-language': 'fr-CH, fr;q=0.9',
      referer: 'http://example.test/',
      'x-quire-client-address': '203.0.113.9',
    };
    assert.equal((await visit(path, revisit)).status, 304);
    assert.equal(reachedFor(path), 2);
    assert.match(String(reached.at(-1)?.headers['x-quire-client-address']), /127\.0\.0\.1$/);

    // The next ones do not: answered here with the page's headers, each with its own request id.
    const answers = await Promise.all([1, 2, 3].map(() => visit(path, revisit)));
    assert.equal(reachedFor(path), 2, 'no revisit reached publishing');
    assert.deepEqual(
      answers.map((response) => response.status),
      [304, 304, 304],
    );
    for (const response of answers) {
      assert.equal(response.headers.get('etag'), ETAG);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=0, must-revalidate');
      assert.equal(response.headers.get('content-security-policy'), "default-src 'none'");
      assert.equal(response.headers.get(SHARED_ANSWER_HEADER), null);
      assert.ok(response.headers.get('x-ratelimit-remaining'));
    }
    assert.equal(new Set(answers.map((response) => response.headers.get('x-request-id'))).size, 3);

    // Each is a view, recorded with publishing in one call.
    await waitFor('the views to be recorded', async () => recorded.length >= 3, 5_000);
    assert.equal(recorded.length, 3);
    for (const view of recorded) {
      assert.deepEqual(
        { ...view, ip: '' },
        { ...VIEW, referrer: 'http://example.test/', ip: '', userAgent: 'revisiting-browser', acceptLanguage: 'fr-CH, fr;q=0.9' },
      );
      assert.match(view.ip, /127\.0\.0\.1$/);
    }

    // Another page's change leaves it kept; a change of one of its spaces drops it at once.
    await publishInvalidation(redis, { type: 'documents', collection: 'test_content.spaces', ids: ['space-2'] });
    await publishInvalidation(redis, { type: 'documents', collection: 'publishing.sites', ids: ['site-1'] });
    assert.equal((await visit(path, revisit)).status, 304);
    assert.equal(reachedFor(path), 2);
    await publishInvalidation(redis, { type: 'documents', collection: 'test_content.spaces', ids: ['space-1'] });
    await waitFor('the revisit to reach publishing again', async () => (await visit(path, revisit)).status === 304 && reachedFor(path) > 2, 5_000);
    // Publishing may not have heard of it yet: what it answers in the next moment is not kept...
    const afterDrop = reachedFor(path);
    await visit(path, revisit);
    assert.equal(reachedFor(path), afterDrop + 1, 'a 304 given right after an invalidation is not kept');
    // ...and is kept again once that moment is over.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await visit(path, revisit);
    await visit(path, revisit);
    assert.equal(reachedFor(path), afterDrop + 2);

    // The site's version moving drops it too.
    await publishInvalidation(redis, { type: 'documents', collection: 'publishing.site_versions', ids: ['site-1'] });
    await waitFor('the revisit to reach publishing again', async () => (await visit(path, revisit)).status === 304 && reachedFor(path) > afterDrop + 2, 5_000);
  });

  it('keeps each validator and encoding apart, and counts no view for a revisit that is none (markdown)', async () => {
    const path = '/sites/acme/docs/guide';
    // Past the moment after the last case's invalidation of the same site.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await visit(path, { 'if-none-match': ETAG });
    await visit(path, { 'if-none-match': ETAG });
    assert.equal(reachedFor(path), 1);
    // Another encoding, or another validator: publishing answers, as it may answer otherwise.
    await visit(path, { 'if-none-match': ETAG, 'accept-encoding': 'gzip' });
    assert.equal((await visit(path, { 'if-none-match': '"v0"' })).status, 200);
    assert.equal(reachedFor(path), 3);

    const markdown = '/sites/acme/docs/guide.md';
    await waitFor('the view of the revisit answered here', async () => recorded.some((view) => view.referrer === '' && view.url === VIEW.url), 5_000);
    const before = recorded.length;
    for (let i = 0; i < 3; i++) assert.equal((await visit(markdown, { 'if-none-match': ETAG })).status, 304);
    assert.equal(reachedFor(markdown), 1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(recorded.length, before, 'no view for a page’s markdown');
  });

  it('answers nothing itself that publishing did not say every visitor gets alike, nor an answer setting a cookie, nor anything but a GET', async () => {
    for (const path of ['/sites/acme/private/page', '/sites/acme/cookie/page']) {
      for (let i = 0; i < 3; i++) assert.equal((await visit(path, { 'if-none-match': ETAG })).status, 304);
      assert.equal(reachedFor(path), 3, path);
    }
    const path = '/sites/acme/docs/head';
    await visit(path, { 'if-none-match': ETAG });
    for (let i = 0; i < 2; i++) {
      const head = await fetch(`http://127.0.0.1:${gateway.port}${path}`, { method: 'HEAD', headers: { 'if-none-match': ETAG } });
      assert.equal(head.status, 304);
    }
    assert.equal(reachedFor(path), 3);
  });
});
