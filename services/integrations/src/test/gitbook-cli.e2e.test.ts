import assert from 'node:assert/strict';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { assertMatchesOpenApi, expectError, expectOk, sharedTestStack, waitFor, type TestOrganization, type TestStack } from '@quire/testkit';
import { cliSession, startCliProxy, startReportRecorder, type CliProxy, type CliSession, type ReportRecorder } from './gitbook-cli';

/** A GitBook integration (gitbook-manifest.yaml, src/index.ts with @gitbook/runtime) as its developer keeps it. */
const FIXTURE = path.resolve(__dirname, '../../fixtures/gitbook-cli-integration');
const NAME = 'quire-cli-recorder';

/**
 * GitBook's own CLI against Quire: `gitbook publish` bundles a @gitbook/runtime integration and
 * publishes it (GITBOOK_ENDPOINT/GITBOOK_TOKEN pointing at the gateway, through a proxy that
 * checks each answer against Quire's API document); Quire's runtime runs its event handlers,
 * which report to a recorder on 127.0.0.1 and call the API back with the installation token;
 * `gitbook tail` prints the events with their logs; `gitbook unpublish` removes it.
 */
describe('integrations: GitBook’s CLI publishes a @gitbook/runtime integration that runs in Quire', () => {
  let stack: TestStack;
  let vendor: TestOrganization<never>;
  let proxy: CliProxy;
  let recorder: ReportRecorder;
  let cli: CliSession;
  const base = `/v1/integrations/${NAME}`;
  let installationId: string;
  let spaceId: string;
  let mergedRevision: string;

  const reportsOf = (what: string) => recorder.reports.filter((report) => report.path === `/${what}`).map((report) => report.body);
  /** The integration's events once `count` of them are delivered (or given up), newest first. */
  const settledEvents = async (count: number) => {
    let items: any[] = [];
    await waitFor(`${count} settled events`, async () => {
      items = expectOk(await vendor.admin.api.get(`${base}/events?limit=100`)).items;
      return items.length >= count && items.every((event) => event.status !== undefined);
    });
    return items;
  };

  beforeAll(async () => {
    recorder = await startReportRecorder();
    // The handlers fetch the recorder and the gateway, both on 127.0.0.1.
    stack = await sharedTestStack({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    vendor = await stack.organization({ domain: 'cli-vendor.test', title: 'CLI vendor', roles: [] });
    proxy = await startCliProxy(stack.baseUrl);
    cli = cliSession({ cwd: FIXTURE, endpoint: proxy.url, token: vendor.admin.token, env: { QUIRE_TEST_RECORDER_URL: recorder.url } });
  });

  afterAll(async () => {
    cli?.dispose();
    await stack?.stop();
    await proxy?.close();
    await recorder?.close();
  });

  it('`gitbook whoami` reads the authenticated user', async () => {
    const run = await cli.run(['whoami']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const user = expectOk(await vendor.admin.api.get('/v1/user'));
    assert.match(run.stdout, new RegExp(`^Authenticated as ${user.displayName}$`, 'm'));
    assert.match(run.stdout, new RegExp(`^ID: ${user.id}$`, 'm'));
    assert.match(run.stdout, /^Email: admin@cli-vendor\.test$/m);
    assert.match(run.stdout, new RegExp(`^API: ${proxy.url}$`, 'm'));
  });

  it('`gitbook publish` bundles the integration and publishes it for the organization given with --organization', async () => {
    const before = proxy.calls.length;
    // Quire's error body is GitBook's: the CLI shows its message and fails.
    const unknown = await cli.run(['publish', '--organization', 'no-such-organization']);
    assert.equal(unknown.code, 1, unknown.stdout + unknown.stderr);
    assert.ok(unknown.stderr.includes(`GitBook API failed with [404] ${proxy.url}${base}: Organization not found`), unknown.stderr);
    expectError(await vendor.admin.api.get(base), 404);

    const run = await cli.run(['publish', '--organization', vendor.id]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const integration = expectOk(await vendor.admin.api.get(base));
    assert.match(run.stdout, new RegExp(`Integration "${NAME}" published`));
    assert.ok(run.stdout.includes(integration.urls.app), run.stdout);

    const calls = proxy.calls.slice(before);
    assert.deepEqual(
      calls.map((call) => `${call.method} ${call.path} ${call.status}`),
      [`POST ${base} 404`, `POST ${base} 200`],
    );
    for (const call of calls) {
      assert.equal(call.authorization, `Bearer ${vendor.admin.token}`);
      assert.match(call.userAgent, /^@gitbook\/cli\/0\.25\.\d+$/);
    }

    // The manifest, as Quire keeps it.
    assertMatchesOpenApi('Integration', integration);
    assert.equal(integration.version, 1);
    assert.equal(integration.title, 'CLI recorder');
    assert.equal(integration.description, 'Reports the events it handles and reads spaces back');
    assert.match(integration.summary, /^Written with @gitbook\/runtime/);
    assert.equal(integration.visibility, 'private');
    assert.equal(integration.target, 'all');
    assert.deepEqual(integration.scopes, ['space:content:read', 'space:metadata:read']);
    assert.deepEqual(integration.categories, ['other']);
    assert.deepEqual(integration.previewImages, []);
    assert.deepEqual(integration.configurations, {
      account: { properties: { channel: { type: 'string', title: 'Channel', description: 'Where the reports go', default: '#docs' } } },
    });
    assert.equal(integration.owner.id, vendor.id);
    assert.equal(integration.permissions.admin, true);
    const icon = await fetch(integration.urls.icon);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/png');

    // Published again (a new build, the same name): the next version.
    const again = await cli.run(['publish', '--organization', vendor.id]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(expectOk(await vendor.admin.api.get(base)).version, 2);
  });

  it('runs the installation_setup and space_content_updated handlers in Quire’s runtime', async () => {
    const installation = expectOk(await vendor.admin.api.post(`${base}/installations`, { organization: vendor.id }), 201);
    installationId = installation.id;
    expectOk(await vendor.admin.api.patch(`${base}/installations/${installationId}`, { space_selection: 'all' }));

    // A change request merged in a space of the organization.
    const space = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Read back' }), 201);
    spaceId = space.id;
    const cr = expectOk(await vendor.admin.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'First page' }), 201);
    expectOk(
      await vendor.admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`, {
        changes: [{ type: 'insert_page', title: 'Hello' }],
      }),
    );
    mergedRevision = expectOk(await vendor.admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`)).revision;

    await waitFor(
      'the merge and both setups handled by the integration',
      async () =>
        reportsOf('space_content_updated').some((report) => report.event.revisionId === mergedRevision) && reportsOf('installation_setup').length >= 2,
    );
    // installation_setup: once installed, once updated; with the environment the runtime gave the handler.
    const setups = reportsOf('installation_setup');
    assert.equal(setups.length, 2, JSON.stringify(setups));
    for (const setup of setups) {
      assert.equal(setup.event.type, 'installation_setup');
      assert.equal(setup.event.installationId, installationId);
      assert.equal(setup.event.status, 'active');
      assert.deepEqual(setup.integration, { name: NAME, version: 2 });
      assert.deepEqual(setup.installation, { id: installationId, configuration: { channel: '#docs' } });
    }
    const [update] = reportsOf('space_content_updated');
    assert.deepEqual(update.event, {
      eventId: update.event.eventId,
      type: 'space_content_updated',
      installationId,
      spaceId,
      revisionId: mergedRevision,
      updatedBy: [],
    });

    // Listed with their outcome; each one read with the handlers' logs as its trace.
    const events = await settledEvents(3);
    for (const event of events) {
      assertMatchesOpenApi('IntegrationEvent', event);
      assert.equal(event.status, 'success', JSON.stringify(event));
      const messages = expectOk(await vendor.admin.api.get(`${base}/events/${event.id}`)).trace.logs.map((log: any) => log.message);
      const expected =
        event.payload.type === 'installation_setup'
          ? [`installation_setup ${installationId} (active)`, 'the recorder answered 200 to installation_setup']
          : [`space ${spaceId} is now at revision ${mergedRevision}`, 'the recorder answered 200 to space_content_updated'];
      for (const message of expected) assert.ok(messages.includes(message), `${event.payload.type}: ${message}\n${messages.join('\n')}`);
    }
  });

  it('lets the space_content_updated handler read the space back with the installation token', () => {
    const [update] = reportsOf('space_content_updated');
    assert.deepEqual(update.space, { status: 200, title: 'Read back' }, 'GET /v1/spaces/{spaceId} with context.api (environment.apiTokens.installation)');
  });

  it('`gitbook tail` prints the latest events with their logs', async () => {
    const tail = cli.start(['tail']);
    try {
      await waitFor('tail printing the merge', async () => tail.output().includes(`GET /v1/spaces/${spaceId} as the installation answered`), 20_000);
    } finally {
      tail.child.kill('SIGINT');
    }
    const { stdout } = await tail.exited;
    // Oldest to newest: the setup of the update, then the merge, each with its logs.
    const events = expectOk(await vendor.admin.api.get(`${base}/events?limit=2`)).items;
    const [merge, setup] = events;
    assert.equal(merge.payload.type, 'space_content_updated');
    assert.equal(setup.payload.type, 'installation_setup');
    const header = (event: any) => `[${event.status}][${new Date(event.createdAt).toISOString()}] ${JSON.stringify(event.payload)}`;
    const lines = stdout.split('\n');
    const at = (line: string) => lines.indexOf(line);
    assert.ok(at(header(setup)) >= 0, stdout);
    assert.ok(at(header(merge)) > at(header(setup)), stdout);
    assert.ok(at(`[info] installation_setup ${installationId} (active)`) > at(header(setup)), stdout);
    assert.ok(at(`[info] space ${spaceId} is now at revision ${mergedRevision}`) > at(header(merge)), stdout);
    const calls = proxy.calls.filter((call) => call.path.startsWith(`${base}/events`)).map((call) => `${call.method} ${call.path} ${call.status}`);
    assert.deepEqual(calls, [`GET ${base}/events?limit=2 200`, `GET ${base}/events/${setup.id} 200`, `GET ${base}/events/${merge.id} 200`]);
  });

  it('`gitbook unpublish` removes it once confirmed', async () => {
    const declined = await cli.run(['unpublish', NAME], { input: 'n\n' });
    assert.equal(declined.code, 0, declined.stdout + declined.stderr);
    expectOk(await vendor.admin.api.get(base));

    const run = await cli.run(['unpublish', NAME], { input: 'y\n' });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`Integration "${NAME}" has been deleted`));
    expectError(await vendor.admin.api.get(base), 404);
    expectError(await vendor.admin.api.get(`${base}/installations/${installationId}`), 404);
  });

  it('answered every call of the CLI as Quire’s API document describes it', () => {
    const operations = new Set(proxy.calls.map((call) => `${call.method} ${call.path.replace(/\?.*/, '').replace(/\/events\/[^/]+$/, '/events/{eventId}')}`));
    assert.deepEqual([...operations].sort(), [`DELETE ${base}`, 'GET /v1/user', `GET ${base}/events`, `GET ${base}/events/{eventId}`, `POST ${base}`].sort());
    assert.deepEqual(proxy.violations, []);
  });
});
