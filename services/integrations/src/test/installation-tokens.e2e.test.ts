import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient, expectError, expectOk, sharedTestStack, waitFor, type TestOrganization, type TestStack } from '@quire/testkit';

/** What a probe script reports: the statuses its installation token got from the API. */
interface ProbeReport {
  name: string;
  eventType: string;
  /** `update` for an installation_setup that updates the installation (it has `previous`). */
  phase?: 'setup' | 'update';
  installationId: string;
  token: string;
  statuses?: Record<string, number>;
}

/**
 * A script that, on each installation_setup, calls the API back with its installation token
 * (from the `environment` multipart field, as @gitbook/runtime's context.api does): reads and
 * renames a space of its organization, tries a setting only space admins change, reads and
 * renames a space of another organization; then reports the statuses to the recorder.
 */
const probeScript = (plan: { name: string; own: string; foreign: string; title: string; recorder: string }) => `const PLAN = ${JSON.stringify(plan)};
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const environment = JSON.parse(form.get('environment'));
    if (event.type !== 'installation_setup') return new Response('ignored');
    const token = environment.apiTokens.installation;
    const call = async (method, path, body) => {
      const response = await fetch(environment.apiEndpoint + path, {
        method,
        headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return response.status;
    };
    const statuses = {
      read: await call('GET', '/v1/spaces/' + PLAN.own),
      rename: await call('PATCH', '/v1/spaces/' + PLAN.own, { title: PLAN.title }),
      settings: await call('PATCH', '/v1/spaces/' + PLAN.own, { editMode: 'locked' }),
      foreignRead: await call('GET', '/v1/spaces/' + PLAN.foreign),
      foreignRename: await call('PATCH', '/v1/spaces/' + PLAN.foreign, { title: 'Taken over' }),
    };
    await fetch(PLAN.recorder, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: PLAN.name, eventType: event.type, phase: event.previous ? 'update' : 'setup', installationId: event.installationId, token, statuses }),
    });
    return new Response('ok');
  },
};`;

/** A script that reports its installation token on every event, for the tests to call the API with. */
const reporterScript = (name: string, recorder: string) => `export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const environment = JSON.parse(form.get('environment'));
    const report = { name: ${JSON.stringify(name)}, eventType: event.type, installationId: event.installationId, token: environment.apiTokens.installation };
    await fetch(${JSON.stringify(recorder)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(report) });
    return new Response('ok');
  },
};`;

/** Installation tokens through the gateway: an installed script calls the API back as its installation. */
describe('integrations: installation tokens through the gateway', () => {
  let stack: TestStack;
  let vendor: TestOrganization<'read'>;
  let customer: TestOrganization<'read'>;
  let recorder: { url: string; reports: ProbeReport[]; server: Server };
  let ownSpace: { id: string; title: string };
  let foreignSpace: { id: string; title: string };
  /** Another space and two sites of the customer. */
  let otherSpace: string;
  let sites: [string, string];

  const publishProbe = async (name: string, scopes: string[], title: string) =>
    expectOk(
      await vendor.admin.api.post(`/v1/integrations/${name}`, {
        organization: vendor.id,
        title: `Probe ${name}`,
        description: 'Calls the API back with its installation token',
        scopes,
        visibility: 'public',
        script: probeScript({ name, own: ownSpace.id, foreign: foreignSpace.id, title, recorder: recorder.url }),
      }),
    );
  /**
   * Installs the integration in the customer's organization on all of its spaces; the report of
   * the installation_setup that selection sends (installed, it covers no space yet).
   */
  const installProbe = async (name: string): Promise<{ installationId: string; report: ProbeReport }> => {
    const installation = expectOk(await customer.admin.api.post(`/v1/integrations/${name}/installations`, { organization: customer.id }), 201);
    expectOk(await customer.admin.api.patch(`/v1/integrations/${name}/installations/${installation.id}`, { space_selection: 'all' }));
    let report: ProbeReport | undefined;
    await waitFor(`the ${name} script's report`, async () => {
      report = recorder.reports.find((r) => r.installationId === installation.id && r.phase === 'update');
      return !!report;
    });
    return { installationId: installation.id, report: report! };
  };
  /** Publishes an integration whose script reports its token on every event. */
  const publishReporter = async (name: string, scopes: string[], title: string) =>
    expectOk(
      await vendor.admin.api.post(`/v1/integrations/${name}`, {
        organization: vendor.id,
        title,
        description: 'Reports its installation token',
        scopes,
        visibility: 'public',
        script: reporterScript(name, recorder.url),
      }),
    );
  /** The token of the first report of the installation after the first `after` reports. */
  const reportedToken = async (installationId: string, after: number, what: string): Promise<string> => {
    let report: ProbeReport | undefined;
    await waitFor(what, async () => {
      report = recorder.reports.slice(after).find((r) => r.installationId === installationId);
      return !!report;
    });
    return report!.token;
  };
  const asToken = (token: string) => apiClient(stack.baseUrl, token);

  beforeAll(async () => {
    const reports: ProbeReport[] = [];
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      reports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ProbeReport);
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    recorder = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`, reports, server };
    stack = await sharedTestStack({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    vendor = await stack.organization({ domain: 'tokens-vendor.test', title: 'Tokens vendor', roles: ['read'] });
    customer = await stack.organization({ domain: 'tokens-customer.test', title: 'Tokens customer', roles: ['read'] });
    ownSpace = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/spaces`, { title: 'Customer docs' }), 201);
    foreignSpace = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Vendor docs' }), 201);
    otherSpace = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/spaces`, { title: 'Customer internal' }), 201).id;
    const site = async (title: string) => expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/sites`, { title }), 201).id as string;
    sites = [await site('Selected site'), await site('Other site')];
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise<void>((resolve) => (recorder?.server ? recorder.server.close(() => resolve()) : resolve()));
  });

  it('gives a read-only integration a token that reads its organization’s spaces but writes nothing, and sees no other organization', async () => {
    await publishProbe('tokens-reading-probe', ['space:content:read'], 'Renamed by the reader');
    const { report } = await installProbe('tokens-reading-probe');
    assert.match(report.token, /^qr_/);
    assert.deepEqual(report.statuses, { read: 200, rename: 403, settings: 403, foreignRead: 404, foreignRename: 404 });
    assert.equal(expectOk(await customer.admin.api.get(`/v1/spaces/${ownSpace.id}`)).title, 'Customer docs');
    assert.equal(expectOk(await vendor.admin.api.get(`/v1/spaces/${foreignSpace.id}`)).title, 'Vendor docs');
  });

  it('lets an integration with space:metadata:write rename a space of its organization, nothing more; the installation joins no member list', async () => {
    const membersBefore = expectOk(await customer.admin.api.get(`/v1/orgs/${customer.id}/members`)).count;
    await publishProbe('tokens-writing-probe', ['space:content:read', 'space:metadata:write'], 'Renamed by the writer');
    const { report } = await installProbe('tokens-writing-probe');
    assert.deepEqual(report.statuses, { read: 200, rename: 200, settings: 403, foreignRead: 404, foreignRename: 404 });
    const space = expectOk(await customer.admin.api.get(`/v1/spaces/${ownSpace.id}`));
    assert.equal(space.title, 'Renamed by the writer');
    assert.equal(space.editMode, 'live', 'settings stay the space admins’');
    assert.equal(expectOk(await vendor.admin.api.get(`/v1/spaces/${foreignSpace.id}`)).title, 'Vendor docs');

    // The token acts as the installation, named after the integration and without e-mail, in one organization only.
    const self = expectOk(await asToken(report.token).get('/v1/user'));
    assert.equal(self.displayName, 'Probe tokens-writing-probe');
    assert.equal(self.email, undefined);
    const elsewhere = await asToken(report.token).get(`/v1/orgs/${vendor.id}/spaces`);
    assert.equal(elsewhere.status, 404, JSON.stringify(elsewhere.body));
    assert.equal(expectOk(await customer.admin.api.get(`/v1/orgs/${customer.id}/members`)).count, membersBefore);
  });

  it('revokes the installation’s token on uninstall (401 from then on) and the integration’s on its deletion', async () => {
    const reader = recorder.reports.find((r) => r.name === 'tokens-reading-probe')!;
    const writer = recorder.reports.find((r) => r.name === 'tokens-writing-probe')!;
    expectOk(await asToken(reader.token).get(`/v1/spaces/${ownSpace.id}`));
    expectOk(await asToken(writer.token).get(`/v1/spaces/${ownSpace.id}`));

    assert.equal((await customer.admin.api.delete(`/v1/integrations/tokens-reading-probe/installations/${reader.installationId}`)).status, 204);
    const afterUninstall = await asToken(reader.token).get(`/v1/spaces/${ownSpace.id}`);
    assert.equal(afterUninstall.status, 401, JSON.stringify(afterUninstall.body));
    assert.equal((await asToken(reader.token).get('/v1/user')).status, 401);
    expectOk(await asToken(writer.token).get(`/v1/spaces/${ownSpace.id}`));

    // Installed again: a new installation, with a token of its own.
    const again = await installProbe('tokens-reading-probe');
    assert.notEqual(again.installationId, reader.installationId);
    assert.equal(again.report.statuses?.read, 200);
    assert.notEqual(again.report.token, reader.token);

    assert.equal((await vendor.admin.api.delete('/v1/integrations/tokens-writing-probe')).status, 204);
    assert.equal((await asToken(writer.token).get(`/v1/spaces/${ownSpace.id}`)).status, 401);
    expectOk(await asToken(again.report.token).get(`/v1/spaces/${ownSpace.id}`));
  });

  it('keeps a republish’s wider scopes out of every token, old and new, until an admin of the installing organization approves them', async () => {
    const name = 'tokens-widening-probe';
    await publishReporter(name, ['space:content:read'], 'Widening probe');
    const installation = expectOk(await customer.admin.api.post(`/v1/integrations/${name}/installations`, { organization: customer.id }), 201);
    const url = `/v1/integrations/${name}/installations/${installation.id}`;
    expectOk(await customer.admin.api.patch(url, { space_selection: 'all' }));
    const old = await reportedToken(installation.id, 0, 'a token of the installation');
    const conversation = (id: string) => ({ id, metadata: { attributes: {} }, parts: [{ type: 'message', role: 'user', body: 'Where is the changelog?' }] });
    let written = 0;
    /** What the token gets for a rename, a new change request and an ingested conversation. */
    const writes = async (token: string) => ({
      rename: (await asToken(token).patch(`/v1/spaces/${ownSpace.id}`, { title: 'Widened docs' })).status,
      changeRequest: (await asToken(token).post(`/v1/spaces/${ownSpace.id}/change-requests`, { subject: 'By the integration' })).status,
      ingest: (await asToken(token).post(`/v1/orgs/${customer.id}/conversations`, conversation(`widening-${++written}`))).status,
    });
    const refused = { rename: 403, changeRequest: 403, ingest: 404 };
    assert.deepEqual(await writes(old), refused);

    const wider = ['space:content:read', 'space:content:write', 'space:metadata:write', 'conversations:ingest'];
    await publishReporter(name, wider, 'Widening probe v2');
    // The next event is delivered with a new token (another version of the integration).
    const republished = recorder.reports.length;
    expectOk(await customer.admin.api.patch(url, { externalIds: ['republished'] }));
    let fresh = '';
    await waitFor('a token issued after the republish', async () => {
      fresh = recorder.reports.slice(republished).find((r) => r.installationId === installation.id && r.token !== old)?.token ?? '';
      return !!fresh;
    });
    for (const token of [old, fresh]) assert.deepEqual(await writes(token), refused);
    const pending = expectOk(await customer.admin.api.get(url));
    assert.equal(pending.status, 'pending');
    assert.deepEqual(pending.scopes, ['space:content:read']);

    // Neither a member who is not an admin nor the vendor approves; the installing organization's admin does, in force at once.
    expectError(await customer.members.read.api.patch(url, { scopes: wider }), 403);
    expectError(await vendor.admin.api.patch(url, { scopes: wider }), 403);
    assert.deepEqual(await writes(old), refused);
    const approved = expectOk(await customer.admin.api.patch(url, { scopes: wider }));
    assert.deepEqual([approved.status, approved.scopes], ['active', wider]);
    for (const token of [old, fresh]) assert.deepEqual(await writes(token), { rename: 200, changeRequest: 201, ingest: 204 });
  });

  it('lets a token act only on the spaces and sites its installation covers, and answers the others as to an outsider', async () => {
    const name = 'tokens-selecting-probe';
    await publishReporter(name, ['space:content:read', 'site:metadata:read'], 'Selecting probe');
    const installation = expectOk(await customer.admin.api.post(`/v1/integrations/${name}/installations`, { organization: customer.id }), 201);
    const url = `/v1/integrations/${name}/installations/${installation.id}`;
    const before = recorder.reports.length;
    expectOk(await customer.admin.api.post(`${url}/spaces`, { space: ownSpace.id }), 201);
    expectOk(await customer.admin.api.post(`${url}/sites`, { siteId: sites[0] }), 201);
    const token = asToken(await reportedToken(installation.id, before, 'a token of the installation'));
    const statuses = async () => ({
      ownSpace: (await token.get(`/v1/spaces/${ownSpace.id}`)).status,
      ownChangeRequests: (await token.get(`/v1/spaces/${ownSpace.id}/change-requests`)).status,
      otherSpace: (await token.get(`/v1/spaces/${otherSpace}`)).status,
      otherChangeRequests: (await token.get(`/v1/spaces/${otherSpace}/change-requests`)).status,
      otherContent: (await token.get(`/v1/spaces/${otherSpace}/content`)).status,
      site: (await token.get(`/v1/orgs/${customer.id}/sites/${sites[0]}`)).status,
      otherSite: (await token.get(`/v1/orgs/${customer.id}/sites/${sites[1]}`)).status,
      conversations: (await token.get(`/v1/orgs/${customer.id}/conversations`)).status,
    });
    const listed = async () => ({
      spaces: expectOk(await token.get(`/v1/orgs/${customer.id}/spaces`)).items.map((space: any) => space.id),
      sites: expectOk(await token.get(`/v1/orgs/${customer.id}/sites`)).items.map((site: any) => site.id),
    });
    const covered = { ownSpace: 200, ownChangeRequests: 200, site: 200, conversations: 404 };
    assert.deepEqual(await statuses(), { ...covered, otherSpace: 404, otherChangeRequests: 404, otherContent: 404, otherSite: 404 });
    assert.deepEqual(await listed(), { spaces: [ownSpace.id], sites: [sites[0]] });

    // `all` covers them all, at once.
    expectOk(await customer.admin.api.patch(url, { space_selection: 'all', site_selection: 'all' }));
    assert.deepEqual(await statuses(), { ...covered, otherSpace: 200, otherChangeRequests: 200, otherContent: 200, otherSite: 200 });
    const everything = await listed();
    assert.deepEqual([everything.spaces.includes(otherSpace), everything.sites.length], [true, 2]);

    // Back to the selection, less the site it leaves.
    expectOk(await customer.admin.api.patch(url, { space_selection: 'selected', site_selection: 'selected' }));
    assert.equal((await customer.admin.api.delete(`${url}/sites/${sites[0]}`)).status, 204);
    assert.deepEqual(await statuses(), { ...covered, site: 404, otherSpace: 404, otherChangeRequests: 404, otherContent: 404, otherSite: 404 });
    assert.deepEqual(await listed(), { spaces: [ownSpace.id], sites: [] });
  });
});
