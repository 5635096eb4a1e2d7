import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import type { Database } from '@quire/runtime';
import { assertMatchesOpenApi, expectError, expectOk, isolatedGit, startTestStack, waitFor, type TestOrganization, type TestStack } from '@quire/testkit';
import type { IntegrationDoc } from '../db/models';
import { integrationSigningSecret } from '../domain/secrets';
import { LIMITS_ENV, publicEndpointLimitCases } from './public-endpoint-limits';
import { startTunnelRecorder, verifySignature, type TunnelRecorder } from './tunnel-recorder';

/** The published script: logs each event it gets, answers 200. */
const SCRIPT = `export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const signed = /^t=\\d+,v1=[0-9a-f]{64}$/.test(request.headers.get('x-quire-delivery-signature') || '');
    console.log('script got ' + event.type + (signed ? ' (signed)' : ' (unsigned)'));
    return new Response('ok');
  },
};`;

/** Runs git without the machine's configuration. */
const git = isolatedGit(os.tmpdir(), { name: 'Quire tests', email: 'tests@quire.test' }).run;

/** Events of integrations, their delivery to a dev tunnel or the script, and dev mode, through the gateway. */
describe('integrations: events and dev mode through the gateway', () => {
  let stack: TestStack;
  let vendor: TestOrganization<'read'>;
  let customer: TestOrganization<'read'>;
  let tunnel: TunnelRecorder;
  let db: Database;
  const NAME = 'event-recorder';
  const base = `/v1/integrations/${NAME}`;

  /** The integration's signing secret, as the service keeps it (the test reads what a developer would be given). */
  const signingSecret = async (name: string) => {
    const doc = await db.collection<IntegrationDoc>('integrations').findOne({ _id: name });
    const key = stack.processEnv.INTEGRATIONS_SECRETS_KEY || readFileSync(path.join(stack.dataDir, 'integrations-secrets-key'), 'utf8').trim();
    return integrationSigningSecret({ INTEGRATIONS_SECRETS_KEY: key }, doc!);
  };
  /** The events of the integration once `count` of them are delivered or given up. */
  const settledEvents = async (count: number) => {
    let items: any[] = [];
    await waitFor(`${count} settled events`, async () => {
      items = expectOk(await vendor.admin.api.get(`${base}/events?limit=1000`)).items;
      return items.length >= count && items.every((event) => event.status !== undefined);
    });
    return items;
  };
  const deliveriesOf = (type: string) => tunnel.received.filter((delivery) => delivery.event.type === type);

  beforeAll(async () => {
    tunnel = await startTunnelRecorder();
    stack = await startTestStack({
      INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      GIT_ALLOWED_PROTOCOLS: 'https,http,file',
      SCRIPT_TIMEOUT_MS: '1000',
      ...LIMITS_ENV,
    });
    vendor = await stack.organization({ domain: 'events-vendor.test', title: 'Events vendor', roles: ['read'] });
    customer = await stack.organization({ domain: 'events-customer.test', title: 'Events customer', roles: ['read'] });
    db = await stack.serviceDatabase('integrations');
    expectOk(
      await vendor.admin.api.post(base, {
        organization: vendor.id,
        title: 'Event recorder',
        description: 'Records what it receives',
        scopes: ['space:content:read'],
        script: SCRIPT,
        visibility: 'public',
      }),
    );
  });

  afterAll(async () => {
    await db?.close();
    await stack?.stop();
    await tunnel?.close();
  });

  it('sends installation_setup and space_content_updated after a merge to the dev tunnel, signed, and lists them with their traces', async () => {
    assert.equal((await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: tunnel.url })).status, 204);
    const installation = expectOk(await vendor.admin.api.post(`${base}/installations`, { organization: vendor.id }), 201);
    expectOk(await vendor.admin.api.patch(`${base}/installations/${installation.id}`, { space_selection: 'all' }));

    // A change request merged in a space of the organization.
    const space = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Evented' }), 201);
    const cr = expectOk(await vendor.admin.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'First page' }), 201);
    expectOk(
      await vendor.admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
        changes: [{ type: 'insert_page', title: 'Hello' }],
      }),
    );
    const merged = expectOk(await vendor.admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));

    await waitFor('the merge delivered to the tunnel', async () => deliveriesOf('space_content_updated').some((d) => d.event.revisionId === merged.revision));
    const secret = await signingSecret(NAME);
    // Deliveries run side by side: the setup may arrive after the update that followed it.
    const setups = deliveriesOf('installation_setup').sort((a, b) => Number('previous' in a.event) - Number('previous' in b.event));
    assert.equal(setups.length, 2, 'installed, then updated');
    const contentUpdates = deliveriesOf('space_content_updated').filter((d) => d.event.revisionId === merged.revision);
    assert.equal(contentUpdates.length, 1, 'one event for the merge, although the stream announces it twice');
    for (const delivery of [...setups, ...contentUpdates]) {
      assert.ok(verifySignature(secret, delivery.headers['x-quire-delivery-signature'], delivery.body), `${delivery.event.type} is signed`);
      assert.equal(delivery.path, '/tunnel');
      assert.equal(delivery.event.installationId, installation.id);
      assert.equal(delivery.environment.integration.name, NAME);
      assert.equal(delivery.environment.installation.id, installation.id);
    }
    assert.deepEqual(setups[0].event, { eventId: setups[0].event.eventId, type: 'installation_setup', installationId: installation.id, status: 'active' });
    assert.deepEqual(setups[1].event.previous, { status: 'active', configuration: {} });
    assert.deepEqual(contentUpdates[0].event, {
      eventId: contentUpdates[0].event.eventId,
      type: 'space_content_updated',
      installationId: installation.id,
      spaceId: space.id,
      revisionId: merged.revision,
      updatedBy: [],
    });

    // Listed newest first with their outcome; each one read with its trace.
    const events = await settledEvents(3);
    const ids = events.map((event) => event.id);
    assert.ok(ids.indexOf(contentUpdates[0].event.eventId) < ids.indexOf(setups[0].event.eventId), 'newest first');
    for (const event of events) {
      assertMatchesOpenApi('IntegrationEvent', event);
      assert.equal(event.status, 'success');
      assert.equal(event.integrationId, NAME);
      const detail = expectOk(await vendor.admin.api.get(`${base}/events/${event.id}`));
      assert.deepEqual(detail.event, event);
      const messages = detail.trace.logs.map((log: any) => log.message);
      assert.ok(
        messages.some((message: string) => /^The tunnel answered 200 in \d+ ms$/.test(message)),
        messages.join('\n'),
      );
      for (const log of detail.trace.logs) assert.ok(['debug', 'info', 'warn', 'error'].includes(log.level) && !Number.isNaN(Date.parse(log.timestamp)));
    }
    assert.deepEqual(events.find((event) => event.id === contentUpdates[0].event.eventId).payload, contentUpdates[0].event);
    const page = expectOk(await vendor.admin.api.get(`${base}/events?limit=1`));
    assert.equal(page.items.length, 1);
    assert.ok(page.count >= 3);
    const next = expectOk(await vendor.admin.api.get(`${base}/events?limit=1&page=${encodeURIComponent(page.next.page)}`));
    assert.notEqual(next.items[0].id, page.items[0].id);
  });

  it('sends space_visibility_updated and space_gitsync_started/completed for the spaces it is installed on', async () => {
    const space = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Synced' }), 201);
    const ofSpace = (type: string) => deliveriesOf(type).filter((d) => d.event.spaceId === space.id);
    expectOk(await vendor.admin.api.patch(`/v1/spaces/${space.id}`, { visibility: 'unlisted' }));
    expectOk(await vendor.admin.api.patch(`/v1/spaces/${space.id}`, { visibility: 'unlisted', title: 'Synced again' }));

    // A Git import from a repository, and one from a repository that is not there.
    const root = mkdtempSync(path.join(os.tmpdir(), 'quire-integration-git-'));
    try {
      const bare = path.join(root, 'docs.git');
      const work = path.join(root, 'work');
      git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
      git(root, 'clone', '--quiet', bare, work);
      git(work, 'checkout', '--quiet', '-B', 'main');
      writeFileSync(path.join(work, 'README.md'), '# Synced\n\nFrom Git.\n');
      git(work, 'add', '--all');
      git(work, 'commit', '--quiet', '-m', 'Docs');
      git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
      const commit = git(work, 'rev-parse', 'HEAD');
      const importFrom = async (url: string) => {
        assert.equal((await vendor.admin.api.post(`/v1/spaces/${space.id}/git/import`, { url, ref: 'refs/heads/main' })).status, 204);
        await waitFor('the import ended', async () => expectOk(await vendor.admin.api.get(`/v1/spaces/${space.id}/git/info`)).operation?.state !== 'running');
      };
      await importFrom(pathToFileURL(bare).href);
      const imported = expectOk(await vendor.admin.api.get(`/v1/spaces/${space.id}`)).revision;
      await importFrom(pathToFileURL(path.join(root, 'missing.git')).href);

      await waitFor(
        'the visibility change and both imports delivered',
        async () =>
          ofSpace('space_gitsync_completed').length === 2 && ofSpace('space_gitsync_started').length === 2 && ofSpace('space_visibility_updated').length > 0,
      );
      const [visibility, ...others] = ofSpace('space_visibility_updated');
      assert.equal(others.length, 0, 'a PATCH that keeps the visibility is no event');
      assert.deepEqual(visibility.event, {
        eventId: visibility.event.eventId,
        type: 'space_visibility_updated',
        installationId: visibility.event.installationId,
        spaceId: space.id,
        previousVisibility: 'private',
        visibility: 'unlisted',
      });
      const started = ofSpace('space_gitsync_started');
      assert.equal(started.length, 2, 'one per operation');
      assert.equal(started[0].event.commitId, '', 'nothing synced before the first import');
      const [succeeded, failed] = ofSpace('space_gitsync_completed');
      assert.deepEqual(succeeded.event, {
        eventId: succeeded.event.eventId,
        type: 'space_gitsync_completed',
        installationId: succeeded.event.installationId,
        spaceId: space.id,
        state: 'success',
        revisionId: imported,
        commitId: commit,
      });
      assert.equal(failed.event.state, 'failure');
      assert.equal(failed.event.commitId, commit, 'the last synced commit');
      for (const delivery of [visibility, ...started, succeeded, failed])
        assert.ok(verifySignature(await signingSecret(NAME), delivery.headers['x-quire-delivery-signature'], delivery.body));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('runs the published script for other organizations (dev mode is the owner’s only unless all), and not at all once off', async () => {
    const before = tunnel.received.length;
    const installation = expectOk(await customer.admin.api.post(`${base}/installations`, { organization: customer.id }), 201);
    let event: any;
    await waitFor('the customer installation delivered', async () => {
      const items = expectOk(await vendor.admin.api.get(`${base}/events?limit=1000`)).items;
      event = items.find((e: any) => e.installationId === installation.id && e.status);
      return !!event;
    });
    assert.equal(event.status, 'success');
    const detail = expectOk(await vendor.admin.api.get(`${base}/events/${event.id}`));
    assert.ok(
      detail.trace.logs.some((log: any) => log.level === 'info' && log.message === 'script got installation_setup (signed)'),
      JSON.stringify(detail.trace.logs),
    );
    assert.equal(tunnel.received.length, before, 'nothing went to the tunnel');

    // With `all`, every installation's events go to the tunnel; dev mode off, to the script again.
    assert.equal((await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: tunnel.url, all: true })).status, 204);
    expectOk(await customer.admin.api.patch(`${base}/installations/${installation.id}`, { externalIds: ['with-all'] }));
    await waitFor('the update delivered to the tunnel', async () => tunnel.received.some((d) => d.event.installationId === installation.id));
    assert.equal((await vendor.admin.api.delete(`${base}/dev`)).status, 204);
    assert.equal((await vendor.admin.api.delete(`${base}/dev`)).status, 204, 'off already');
    const delivered = tunnel.received.length;
    expectOk(await vendor.admin.api.patch(`${base}/installations/${installation.id}`, { externalIds: ['dev-off'] }));
    await settledEvents(6);
    assert.equal(tunnel.received.length, delivered, 'dev mode off: the script handles it');
  });

  it('sends the setup and removal of space and site installations, and the uninstall', async () => {
    assert.equal((await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: tunnel.url })).status, 204);
    const installation = expectOk(await vendor.admin.api.get(`${base}/installations`)).items.find((i: any) => i.target.organization === vendor.id);
    const space = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Installed on' }), 201);
    const site = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/sites`, { title: 'Installed on' }), 201);
    const under = `${base}/installations/${installation.id}`;
    expectOk(await vendor.admin.api.post(`${under}/spaces`, { space: space.id }), 201);
    expectOk(await vendor.admin.api.patch(`${under}/spaces/${space.id}`, { externalIds: ['space-ext'] }));
    assert.equal((await vendor.admin.api.delete(`${under}/spaces/${space.id}`)).status, 204);
    expectOk(await vendor.admin.api.post(`${under}/sites`, { siteId: site.id }), 201);
    assert.equal((await vendor.admin.api.delete(`${under}/sites/${site.id}`)).status, 204);
    assert.equal((await vendor.admin.api.delete(under)).status, 204);

    await waitFor('the uninstall delivered', async () => deliveriesOf('installation_deleted').length === 1);
    const of = (type: string) => deliveriesOf(type).filter((d) => d.event.installationId === installation.id);
    const [spaceSetup, spaceUpdate] = of('space_installation_setup');
    assert.deepEqual(spaceSetup.event, {
      eventId: spaceSetup.event.eventId,
      type: 'space_installation_setup',
      installationId: installation.id,
      spaceId: space.id,
      status: 'active',
    });
    assert.deepEqual(spaceUpdate.event.previous, { status: 'active', configuration: {} });
    assert.equal(spaceUpdate.environment.spaceInstallation.space, space.id);
    assert.deepEqual(spaceUpdate.environment.spaceInstallation.externalIds, ['space-ext']);
    assert.deepEqual(of('space_installation_deleted')[0].event, {
      eventId: of('space_installation_deleted')[0].event.eventId,
      type: 'space_installation_deleted',
      installationId: installation.id,
      spaceId: space.id,
      previous: { configuration: {} },
    });
    assert.equal(of('site_installation_setup')[0].event.siteId, site.id);
    assert.equal(of('site_installation_deleted')[0].event.siteId, site.id);
    assert.deepEqual(of('installation_deleted')[0].event.previous, { configuration: {} });
    const secret = await signingSecret(NAME);
    for (const delivery of tunnel.received) assert.ok(verifySignature(secret, delivery.headers['x-quire-delivery-signature'], delivery.body));
  });

  it('ends a hostile script (endless loop, huge allocation, host access) as a failed event, and keeps serving', async () => {
    const hostile = {
      'hostile-loop': 'while (true) {}',
      'hostile-memory': 'const hoard = []; while (true) hoard.push(new Array(1e6).fill(7));',
      'hostile-host': 'process.exit(1);',
    };
    // One after the other, so that each trace is read alone.
    const reasons = new Map<string, string>();
    for (const [name, body] of Object.entries(hostile)) {
      expectOk(
        await vendor.admin.api.post(`/v1/integrations/${name}`, {
          organization: vendor.id,
          title: name,
          description: 'Misbehaves',
          scopes: [],
          script: `export default { async fetch(request) { await request.formData(); ${body} return new Response('ok'); } };`,
          visibility: 'private',
        }),
      );
      expectOk(await vendor.admin.api.post(`/v1/integrations/${name}/installations`, { organization: vendor.id }), 201);
      await waitFor(`${name}'s event settled`, async () => {
        const answer = await vendor.admin.api.get(`/v1/integrations/${name}/events`);
        if (answer.status === 503) return false;
        const [event] = expectOk(answer).items;
        if (!event?.status) return false;
        assert.equal(event.status, 'failed');
        const logs = expectOk(await vendor.admin.api.get(`/v1/integrations/${name}/events/${event.id}`)).trace.logs;
        reasons.set(name, logs.map((log: any) => log.message).join('\n'));
        return true;
      });
    }
    assert.match(reasons.get('hostile-loop')!, /The script failed after \d+ ms: .*(CPU|time)/i);
    // At its memory limit QuickJS collects on every allocation, inside native calls its CPU
    // check never sees: the main thread ends such a run for its CPU time, stopping its worker.
    assert.match(reasons.get('hostile-memory')!, /The script failed after \d+ ms: .*(memory|CPU time limit exceeded .* stopping its worker thread)/i);
    assert.match(reasons.get('hostile-host')!, /The script failed after \d+ ms: .*process is not defined/);
    // The service answers, and a well-behaved integration's events still go through.
    assert.equal(expectOk(await vendor.admin.api.get('/v1/integrations?limit=5')).items.length > 0, true);
    const before = deliveriesOf('installation_setup').length;
    const other = expectOk(await customer.admin.api.post(`${base}/installations`, { organization: customer.id }), 201);
    expectOk(await customer.admin.api.patch(`${base}/installations/${other.id}`, { externalIds: ['after-hostile'] }));
    await waitFor('an event delivered after the hostile ones', async () => {
      const items = expectOk(await vendor.admin.api.get(`${base}/events?limit=5`)).items;
      return items.some((event: any) => event.installationId === other.id && event.status === 'success');
    });
    assert.ok(deliveriesOf('installation_setup').length >= before);
    for (const name of Object.keys(hostile)) assert.equal((await vendor.admin.api.delete(`/v1/integrations/${name}`)).status, 204);
  });

  it("answers at the integration's public endpoint with its script, without a token, as GitBook's fetch event", async () => {
    const script = `export default {
      async fetch(request) {
        const form = await request.formData();
        const event = JSON.parse(form.get('event'));
        const environment = JSON.parse(form.get('environment'));
        if (event.type !== 'fetch') return new Response('ok');
        const body = form.get('fetch-body');
        if (event.request.url.endsWith('/fail')) throw new Error('no way');
        console.log('endpoint called');
        return new Response(JSON.stringify({
          method: event.request.method,
          url: event.request.url,
          test: event.request.headers['x-test'] ?? null,
          authorization: event.request.headers['authorization'] ?? null,
          body: body === null ? null : typeof body === 'string' ? body : await body.text(),
          integration: environment.integration.name,
        }), { status: 200, headers: { 'content-type': 'application/json', 'set-cookie': 'a=b', 'x-from-script': 'yes' } });
      },
    };`;
    const published = expectOk(
      await vendor.admin.api.post('/v1/integrations/endpoint-echo', {
        organization: vendor.id,
        title: 'Endpoint echo',
        description: 'Answers at its endpoint',
        scopes: [],
        script,
        visibility: 'unlisted',
      }),
    );
    const endpoint = published.urls.publicEndpoint;
    assert.equal(endpoint, `${stack.baseUrl}/v1/public/integrations/endpoint-echo/integration`);

    const got = await fetch(`${endpoint}?from=test`, { headers: { 'x-test': 'one' } });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-security-policy'), 'sandbox', 'its pages cannot act as Quire');
    assert.match(got.headers.get('content-type') ?? '', /^application\/json/, 'allowed headers pass');
    assert.equal(got.headers.get('x-from-script'), null, 'headers off the allow-list are dropped');
    assert.equal(got.headers.get('set-cookie'), null, 'no cookies on the API origin');
    assert.deepEqual(await got.json(), {
      method: 'GET',
      url: `${endpoint}?from=test`,
      test: 'one',
      authorization: null,
      body: null,
      integration: 'endpoint-echo',
    });

    // A webhook's body reaches the script byte for byte (spacing included), the caller's token never.
    const raw = '{ "action":  "opened" }';
    const posted = await fetch(`${endpoint}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${vendor.admin.token}` },
      body: raw,
    });
    assert.equal(posted.status, 200);
    const echoed = (await posted.json()) as Record<string, unknown>;
    assert.equal(echoed.body, raw);
    assert.equal(echoed.authorization, null);
    assert.equal(echoed.url, `${endpoint}/webhook`);
    const form = await fetch(`${endpoint}/form`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'plain words' });
    assert.equal(((await form.json()) as { body: string }).body, 'plain words');

    // A script that throws: 502 with the standard error; unknown and private integrations: 404.
    const failed = await fetch(`${endpoint}/fail`);
    assert.equal(failed.status, 502);
    assert.match(((await failed.json()) as { error: { message: string } }).error.message, /failed to answer/);
    assert.equal((await fetch(`${stack.baseUrl}/v1/public/integrations/no-such-integration/integration`)).status, 404);
    expectOk(
      await vendor.admin.api.post('/v1/integrations/endpoint-echo', {
        organization: vendor.id,
        title: 'Endpoint echo',
        description: 'Answers at its endpoint',
        scopes: [],
        script,
        visibility: 'private',
      }),
    );
    assert.equal((await fetch(endpoint)).status, 404);
    assert.equal((await vendor.admin.api.delete('/v1/integrations/endpoint-echo')).status, 204);
  });

  it('lets only the vendor admins read events and set dev mode (403 for others who see it, 404 for what they cannot see)', async () => {
    const events = expectOk(await vendor.admin.api.get(`${base}/events`)).items;
    const one = `${base}/events/${events[0].id}`;
    for (const client of [vendor.members.read, customer.admin, customer.outsider]) {
      expectError(await client.api.get(`${base}/events`), 403);
      expectError(await client.api.get(one), 403);
      expectError(await client.api.put(`${base}/dev`, { tunnelUrl: tunnel.url }), 403);
      expectError(await client.api.delete(`${base}/dev`), 403);
    }
    expectError(await vendor.admin.api.get(`${base}/events/no-such-event`), 404);
    // A private integration of the customer is as unknown to the vendor as a missing one.
    expectOk(
      await customer.admin.api.post('/v1/integrations/hidden-one', {
        organization: customer.id,
        title: 'Hidden one',
        description: 'Private',
        scopes: [],
        script: SCRIPT,
        visibility: 'private',
      }),
    );
    for (const missing of ['/v1/integrations/no-such-integration', '/v1/integrations/hidden-one']) {
      expectError(await vendor.admin.api.get(`${missing}/events`), 404);
      expectError(await vendor.admin.api.get(`${missing}/events/x`), 404);
      expectError(await vendor.admin.api.put(`${missing}/dev`, { tunnelUrl: tunnel.url }), 404);
      expectError(await vendor.admin.api.delete(`${missing}/dev`), 404);
    }
    // Another integration's event is not found under this one.
    assert.equal((await customer.admin.api.put('/v1/integrations/hidden-one/dev', { tunnelUrl: tunnel.url })).status, 204);
    expectError(await customer.admin.api.get(`/v1/integrations/hidden-one/events/${events[0].id}`), 404);
    assert.equal(expectOk(await customer.admin.api.get('/v1/integrations/hidden-one/events')).count, 0);
  });

  it('checks the tunnel address: http(s) only, at most 256 characters', async () => {
    expectError(await vendor.admin.api.put(`${base}/dev`, {}), 400, 'tunnelUrl');
    expectError(await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: 'ftp://127.0.0.1/x' }), 400, 'tunnelUrl');
    expectError(await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: 'not a url' }), 400, 'tunnelUrl');
    expectError(await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: `http://127.0.0.1/${'x'.repeat(260)}` }), 400, 'tunnelUrl');
    expectError(await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: 'http://169.254.169.254/latest' }), 400, 'tunnelUrl');
    expectError(await vendor.admin.api.put(`${base}/dev`, { tunnelUrl: tunnel.url, all: 'yes' }), 400, 'all');
  });

  it('takes a tunnel whose name does not resolve yet (204), leaving the name to each delivery', async () => {
    // An integration without installations: no event is delivered, so the name is never looked up.
    const name = 'tunnel-later';
    expectOk(
      await vendor.admin.api.post(`/v1/integrations/${name}`, {
        organization: vendor.id,
        title: 'Tunnel later',
        description: 'Its tunnel starts after it is set',
        scopes: [],
        script: 'export default { async fetch() { return new Response("ok"); } };',
        visibility: 'private',
      }),
    );
    assert.equal((await vendor.admin.api.put(`/v1/integrations/${name}/dev`, { tunnelUrl: 'https://quire-dev-tunnel.invalid/events' })).status, 204);
    assert.equal((await vendor.admin.api.delete(`/v1/integrations/${name}/dev`)).status, 204);
  });

  publicEndpointLimitCases(() => ({ stack, vendor, customer }));
});
