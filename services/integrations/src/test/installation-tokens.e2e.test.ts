import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { apiClient, expectOk, startTestStack, waitFor, type TestOrganization, type TestStack } from '@quire/testkit';

/** What a probe script reports: the statuses its installation token got from the API. */
interface ProbeReport {
  name: string;
  eventType: string;
  installationId: string;
  token: string;
  statuses: Record<string, number>;
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
      body: JSON.stringify({ name: PLAN.name, eventType: event.type, installationId: event.installationId, token, statuses }),
    });
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
  /** Installs the integration in the customer's organization; the report of its installation_setup. */
  const installProbe = async (name: string): Promise<{ installationId: string; report: ProbeReport }> => {
    const installation = expectOk(await customer.admin.api.post(`/v1/integrations/${name}/installations`, { organization: customer.id }), 201);
    let report: ProbeReport | undefined;
    await waitFor(`the ${name} script's report`, async () => {
      report = recorder.reports.find((r) => r.installationId === installation.id);
      return !!report;
    });
    return { installationId: installation.id, report: report! };
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
    stack = await startTestStack({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    vendor = await stack.organization({ domain: 'tokens-vendor.test', title: 'Tokens vendor', roles: ['read'] });
    customer = await stack.organization({ domain: 'tokens-customer.test', title: 'Tokens customer', roles: ['read'] });
    ownSpace = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/spaces`, { title: 'Customer docs' }), 201);
    foreignSpace = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Vendor docs' }), 201);
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise<void>((resolve) => (recorder?.server ? recorder.server.close(() => resolve()) : resolve()));
  });

  it('gives a read-only integration a token that reads its organization’s spaces but writes nothing, and sees no other organization', async () => {
    await publishProbe('reading-probe', ['space:content:read'], 'Renamed by the reader');
    const { report } = await installProbe('reading-probe');
    assert.match(report.token, /^qr_/);
    assert.deepEqual(report.statuses, { read: 200, rename: 403, settings: 403, foreignRead: 404, foreignRename: 404 });
    assert.equal(expectOk(await customer.admin.api.get(`/v1/spaces/${ownSpace.id}`)).title, 'Customer docs');
    assert.equal(expectOk(await vendor.admin.api.get(`/v1/spaces/${foreignSpace.id}`)).title, 'Vendor docs');
  });

  it('lets an integration with space:metadata:write rename a space of its organization, nothing more; the installation joins no member list', async () => {
    const membersBefore = expectOk(await customer.admin.api.get(`/v1/orgs/${customer.id}/members`)).count;
    await publishProbe('writing-probe', ['space:content:read', 'space:metadata:write'], 'Renamed by the writer');
    const { report } = await installProbe('writing-probe');
    assert.deepEqual(report.statuses, { read: 200, rename: 200, settings: 403, foreignRead: 404, foreignRename: 404 });
    const space = expectOk(await customer.admin.api.get(`/v1/spaces/${ownSpace.id}`));
    assert.equal(space.title, 'Renamed by the writer');
    assert.equal(space.editMode, 'live', 'settings stay the space admins’');
    assert.equal(expectOk(await vendor.admin.api.get(`/v1/spaces/${foreignSpace.id}`)).title, 'Vendor docs');

    // The token acts as the installation, named after the integration and without e-mail, in one organization only.
    const self = expectOk(await asToken(report.token).get('/v1/user'));
    assert.equal(self.displayName, 'Probe writing-probe');
    assert.equal(self.email, undefined);
    const elsewhere = await asToken(report.token).get(`/v1/orgs/${vendor.id}/spaces`);
    assert.equal(elsewhere.status, 404, JSON.stringify(elsewhere.body));
    assert.equal(expectOk(await customer.admin.api.get(`/v1/orgs/${customer.id}/members`)).count, membersBefore);
  });

  it('revokes the installation’s token on uninstall (401 from then on) and the integration’s on its deletion', async () => {
    const reader = recorder.reports.find((r) => r.name === 'reading-probe')!;
    const writer = recorder.reports.find((r) => r.name === 'writing-probe')!;
    expectOk(await asToken(reader.token).get(`/v1/spaces/${ownSpace.id}`));
    expectOk(await asToken(writer.token).get(`/v1/spaces/${ownSpace.id}`));

    assert.equal((await customer.admin.api.delete(`/v1/integrations/reading-probe/installations/${reader.installationId}`)).status, 204);
    const afterUninstall = await asToken(reader.token).get(`/v1/spaces/${ownSpace.id}`);
    assert.equal(afterUninstall.status, 401, JSON.stringify(afterUninstall.body));
    assert.equal((await asToken(reader.token).get('/v1/user')).status, 401);
    expectOk(await asToken(writer.token).get(`/v1/spaces/${ownSpace.id}`));

    // Installed again: a new installation, with a token of its own.
    const again = await installProbe('reading-probe');
    assert.notEqual(again.installationId, reader.installationId);
    assert.equal(again.report.statuses.read, 200);
    assert.notEqual(again.report.token, reader.token);

    assert.equal((await vendor.admin.api.delete('/v1/integrations/writing-probe')).status, 204);
    assert.equal((await asToken(writer.token).get(`/v1/spaces/${ownSpace.id}`)).status, 401);
    expectOk(await asToken(again.report.token).get(`/v1/spaces/${ownSpace.id}`));
  });
});
