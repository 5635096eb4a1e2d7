import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { assertMatchesOpenApi, expectError, expectOk, sharedTestStack, waitFor, type TestAccount, type TestOrganization, type TestStack } from '@quire/testkit';

/** A script that answers every event: what the runtime runs for the integrations of this suite. */
const SCRIPT = 'export default { async fetch() { return new Response("ok"); } };';

/** Installations of integrations on organizations, spaces and sites, through the gateway. */
describe('integrations: installations through the gateway', () => {
  let stack: TestStack;
  /** Publishes the integrations. */
  let vendor: TestOrganization<'read'>;
  /** Installs them. */
  let customer: TestOrganization<'read'>;
  let customerSpace: string;
  let customerSite: string;
  let vendorSpace: string;

  const integration = (name: string) => `/v1/integrations/${name}`;
  const installations = (name: string) => `${integration(name)}/installations`;
  const publish = async (name: string, fields: Record<string, unknown> = {}, as: TestAccount = vendor.admin) =>
    expectOk(
      await as.api.post(integration(name), {
        organization: vendor.id,
        title: `Integration ${name}`.slice(0, 30),
        description: 'Installed by the tests',
        scopes: ['space:content:read'],
        script: SCRIPT,
        visibility: 'public',
        ...fields,
      }),
    );
  const install = async (name: string, organizationId = customer.id, as = customer.admin) =>
    expectOk(await as.api.post(installations(name), { organization: organizationId }), 201);

  beforeAll(async () => {
    stack = await sharedTestStack({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    vendor = await stack.organization({ domain: 'vendor.test', title: 'Vendor', roles: ['read'] });
    customer = await stack.organization({ domain: 'customer.test', title: 'Customer', roles: ['read'] });
    customerSpace = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/spaces`, { title: 'Customer docs' }), 201).id;
    vendorSpace = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Vendor docs' }), 201).id;
    customerSite = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/sites`, { title: 'Customer site' }), 201).id;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('installs an integration in an organization, once, even when asked several times at once', async () => {
    await publish('installable', {
      configurations: {
        account: { properties: { token: { type: 'string', title: 'Token' }, region: { type: 'string', default: 'eu' } }, required: ['token'] },
      },
    });
    const answers = await Promise.all(Array.from({ length: 5 }, () => customer.admin.api.post(installations('installable'), { organization: customer.id })));
    for (const answer of answers) assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const installation = answers[0].body;
    assert.deepEqual(new Set(answers.map((a) => a.body.id)).size, 1, 'one installation');
    assertMatchesOpenApi('IntegrationInstallation', installation);
    assert.equal(answers[0].headers.get('location'), installation.urls.location);
    assert.equal(installation.target.organization, customer.id);
    // The account schema requires a token nobody gave yet: pending until configured; defaults filled in.
    assert.equal(installation.status, 'pending');
    assert.deepEqual(installation.configuration, { region: 'eu' });
    assert.equal(installation.space_selection, 'selected');
    assert.equal(installation.site_selection, 'selected');
    assert.equal(installation.spaces, 0);
    assert.deepEqual(installation.externalIds, []);
    assert.deepEqual(expectOk(await customer.admin.api.get(installation.urls.location.replace(stack.baseUrl, ''))), installation);
    const listed = expectOk(await customer.admin.api.get(installations('installable')));
    assert.equal(listed.count, 1);
    // Installing again answers the installation there is.
    assert.equal((await install('installable')).id, installation.id);
  });

  it('refuses installs the caller may not make: 404 unknown or hidden, 403 not an admin, 400 bad input', async () => {
    await publish('vendor-only', { visibility: 'private' });
    expectError(await customer.admin.api.post(installations('no-such-integration'), { organization: customer.id }), 404);
    expectError(await customer.admin.api.post(installations('vendor-only'), { organization: customer.id }), 404);
    // The vendor's own members see it: its admin installs it at home, a reader may not.
    expectError(await vendor.members.read.api.post(installations('vendor-only'), { organization: vendor.id }), 403);
    assert.equal((await install('vendor-only', vendor.id, vendor.admin)).target.organization, vendor.id);
    await publish('public-one');
    expectError(await customer.members.read.api.post(installations('public-one'), { organization: customer.id }), 403);
    expectError(await customer.outsider.api.post(installations('public-one'), { organization: customer.id }), 404);
    expectError(await customer.admin.api.post(installations('public-one'), {}), 400, 'organization');
    expectError(await customer.admin.api.post(installations('public-one'), { organization: 42 }), 400, 'organization');
    expectError(await customer.admin.api.post(installations('bad name!'), { organization: customer.id }), 400, 'integrationName');
  });

  it('lists installations: all for the vendor admins, their own for the others, by external id, page by page', async () => {
    await publish('listed');
    const mine = await install('listed');
    const vendors = await install('listed', vendor.id, vendor.admin);
    const all = expectOk(await vendor.admin.api.get(installations('listed')));
    assert.equal(all.count, 2);
    assert.deepEqual(all.items.map((i: any) => i.id).sort(), [mine.id, vendors.id].sort());
    const own = expectOk(await customer.admin.api.get(installations('listed')));
    assert.deepEqual(
      own.items.map((i: any) => i.id),
      [mine.id],
    );
    // Members who are not admins, and strangers, see none.
    assert.equal(expectOk(await customer.members.read.api.get(installations('listed'))).count, 0);
    assert.equal(expectOk(await customer.outsider.api.get(installations('listed'))).count, 0);
    expectError(await customer.admin.api.get(installations('no-such-integration')), 404);

    expectOk(await customer.admin.api.patch(`${installations('listed')}/${mine.id}`, { externalIds: ['acct-42', 'acct-43'] }));
    const byExternalId = expectOk(await vendor.admin.api.get(`${installations('listed')}?externalId=acct-42`));
    assert.deepEqual(
      byExternalId.items.map((i: any) => i.id),
      [mine.id],
    );
    assert.equal(expectOk(await vendor.admin.api.get(`${installations('listed')}?externalId=nobody`)).count, 0);

    const first = expectOk(await vendor.admin.api.get(`${installations('listed')}?limit=1`));
    assert.equal(first.items.length, 1);
    assert.equal(first.count, 2);
    const second = expectOk(await vendor.admin.api.get(`${installations('listed')}?limit=1&page=${encodeURIComponent(first.next.page)}`));
    assert.equal(second.items.length, 1);
    assert.equal(second.next, undefined);
    assert.notEqual(second.items[0].id, first.items[0].id);
    expectError(await vendor.admin.api.get(`${installations('listed')}?limit=0`), 400, 'limit');
  });

  it('reads, updates and uninstalls an installation (its admins and the vendor admins only)', async () => {
    await publish('configurable', {
      configurations: { account: { properties: { token: { type: 'string' }, retries: { type: 'number' } }, required: ['token'] } },
    });
    const installation = await install('configurable');
    const url = `${installations('configurable')}/${installation.id}`;
    assert.deepEqual(expectOk(await vendor.admin.api.get(url)), installation);
    expectError(await customer.members.read.api.get(url), 403);
    expectError(await customer.outsider.api.get(url), 404);
    expectError(await vendor.members.read.api.get(url), 404);
    expectError(await customer.admin.api.get(`${installations('configurable')}/no-such-installation`), 404);
    expectError(await customer.admin.api.get(`${installations('installable')}/${installation.id}`), 404);

    expectError(await customer.admin.api.patch(url, { configuration: { token: 5 } }), 400, 'configuration.token');
    expectError(await customer.admin.api.patch(url, { configuration: { retries: 3 } }), 400, 'configuration.token');
    expectError(await customer.admin.api.patch(url, { externalIds: ['1', '2', '3', '4', '5', '6'] }), 400, 'externalIds');
    expectError(await customer.admin.api.patch(url, { space_selection: 'some' }), 400, 'space_selection');
    expectError(await customer.members.read.api.patch(url, { externalIds: ['x'] }), 403);
    const configured = expectOk(await customer.admin.api.patch(url, { configuration: { token: 'secret', retries: 3 }, space_selection: 'all' }));
    assert.equal(configured.status, 'active');
    assert.deepEqual(configured.configuration, { token: 'secret', retries: 3 });
    assert.equal(configured.space_selection, 'all');
    assert.ok(configured.updatedAt >= installation.updatedAt);
    // What the installation's tokens reach is the installing organization's to decide, not the vendor's.
    expectError(await vendor.admin.api.patch(url, { site_selection: 'all' }), 403);
    expectError(await vendor.admin.api.patch(url, { space_selection: 'all', externalIds: ['vendor'] }), 403);
    // Two updates of different fields at once: both kept.
    await Promise.all([vendor.admin.api.patch(url, { externalIds: ['both'] }), customer.admin.api.patch(url, { site_selection: 'all' })]);
    const both = expectOk(await customer.admin.api.get(url));
    assert.deepEqual(both.externalIds, ['both']);
    assert.equal(both.site_selection, 'all');

    expectError(await customer.members.read.api.delete(url), 403);
    expectError(await vendor.admin.api.delete(url), 403);
    expectError(await customer.outsider.api.delete(url), 404);
    assert.equal((await customer.admin.api.delete(url)).status, 204);
    expectError(await customer.admin.api.get(url), 404);
    assert.equal((await customer.admin.api.delete(url)).status, 204, 'a DELETE of what is gone is a 204');
    assert.equal((await install('configurable')).status, 'pending', 'installable again');
  });

  it('installs on a space of the organization, and lists the space installations with the space object', async () => {
    await publish('on-spaces', { target: 'space', configurations: { space: { properties: { path: { type: 'string', default: '/docs' } } } } });
    const installation = await install('on-spaces');
    const spaces = `${installations('on-spaces')}/${installation.id}/spaces`;
    const answers = await Promise.all([customer.admin.api.post(spaces, { space: customerSpace }), customer.admin.api.post(spaces, { space: customerSpace })]);
    for (const answer of answers) assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const entry = answers[0].body;
    assertMatchesOpenApi('IntegrationSpaceInstallation', entry);
    assert.equal(entry.space, customerSpace);
    assert.equal(entry.integration, 'on-spaces');
    assert.equal(entry.installation, installation.id);
    assert.equal(entry.status, 'active');
    assert.deepEqual(entry.configuration, { path: '/docs' });
    assert.equal(answers[0].headers.get('location'), entry.urls.location);

    // Another organization's space, a missing one: 404; not an admin: 403; a site-only integration: 400.
    expectError(await customer.admin.api.post(spaces, { space: vendorSpace }), 404);
    expectError(await customer.admin.api.post(spaces, { space: 'no-such-space' }), 404);
    expectError(await customer.members.read.api.post(spaces, { space: customerSpace }), 403);
    expectError(await customer.admin.api.post(spaces, {}), 400, 'space');
    expectError(await customer.admin.api.post(`${installations('on-spaces')}/${installation.id}/sites`, { siteId: customerSite }), 400, 'siteId');

    const listed = expectOk(await customer.admin.api.get(`${spaces}?extended=true`));
    assert.equal(listed.count, 1);
    assert.equal(listed.items[0].space.object, 'space');
    assert.equal(listed.items[0].space.id, customerSpace);
    assert.equal(listed.items[0].space.title, 'Customer docs');
    assert.equal(expectOk(await customer.admin.api.get(spaces)).items[0].space, customerSpace);
    assert.equal(expectOk(await customer.admin.api.get(`${installations('on-spaces')}/${installation.id}`)).spaces, 1);

    // The integration's space installations: the vendor sees them all, the customer's space by its id only.
    const everywhere = expectOk(await vendor.admin.api.get(`${integration('on-spaces')}/spaces?extended=true`));
    assert.equal(everywhere.count, 1);
    assert.equal(everywhere.items[0].space, customerSpace);
    assert.equal(expectOk(await customer.admin.api.get(`${integration('on-spaces')}/spaces?extended=true`)).items[0].space.title, 'Customer docs');
    assert.equal(expectOk(await customer.outsider.api.get(`${integration('on-spaces')}/spaces`)).count, 0);

    const one = `${spaces}/${customerSpace}`;
    assert.deepEqual(expectOk(await customer.admin.api.get(one)), entry);
    expectError(await customer.members.read.api.get(one), 403);
    expectError(await customer.admin.api.get(`${spaces}/${vendorSpace}`), 404);
    const updated = expectOk(await customer.admin.api.patch(`${one}?extended=true`, { externalIds: ['repo-1'], configuration: { path: '/api' } }));
    assert.deepEqual(updated.configuration, { path: '/api' });
    assert.equal(updated.space.id, customerSpace);
    expectError(await customer.admin.api.patch(one, { configuration: { path: 7 } }), 400, 'configuration.path');
    assert.equal(expectOk(await vendor.admin.api.get(`${integration('on-spaces')}/spaces?externalId=repo-1`)).count, 1);

    expectError(await customer.members.read.api.delete(one), 403);
    assert.equal((await customer.admin.api.delete(one)).status, 204);
    assert.equal((await customer.admin.api.delete(one)).status, 204);
    expectError(await customer.admin.api.get(one), 404);
    assert.equal(expectOk(await customer.admin.api.get(spaces)).count, 0);
  });

  it('lets a space admin who is not an organization admin install on that space, as Space.permissions.installIntegration tells', async () => {
    await publish('space-admins', { target: 'space' });
    const installation = await install('space-admins');
    const spaces = `${installations('space-admins')}/${installation.id}/spaces`;
    const reader = customer.members.read;
    const theirs = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/spaces`, { title: 'Reader-run docs' }), 201).id;
    expectOk(await customer.admin.api.post(`/v1/spaces/${theirs}/permissions`, { role: 'admin', users: [reader.userId] }), 204);
    const organization = expectOk(await reader.api.get(`/v1/orgs/${customer.id}`));
    assert.equal(organization.permissions.installIntegration, false);
    assert.equal(organization.permissions.listInstallations, false);
    assert.equal(organization.permissions.listIntegrations, true);
    assert.equal(expectOk(await customer.admin.api.get(`/v1/orgs/${customer.id}`)).permissions.installIntegration, true);

    assert.equal(expectOk(await reader.api.get(`/v1/spaces/${theirs}`)).permissions.installIntegration, true);
    assert.equal(expectOk(await reader.api.get(`/v1/spaces/${customerSpace}`)).permissions.installIntegration, false);
    const entry = expectOk(await reader.api.post(spaces, { space: theirs }), 201);
    assert.equal(entry.space, theirs);
    expectError(await reader.api.post(spaces, { space: customerSpace }), 403);
    expectError(await reader.api.delete(`${spaces}/${customerSpace}`), 403);
    assert.equal((await reader.api.delete(`${spaces}/${theirs}`)).status, 204);
    assert.equal(expectOk(await customer.admin.api.get(spaces)).count, 0);
  });

  it('installs on a site of the organization, and lists the site installations with the site object', async () => {
    await publish('on-sites', { target: 'site' });
    const installation = await install('on-sites');
    const sites = `${installations('on-sites')}/${installation.id}/sites`;
    const entry = expectOk(await customer.admin.api.post(`${sites}?extended=true`, { siteId: customerSite }), 201);
    assertMatchesOpenApi('IntegrationSiteInstallation', entry);
    assert.equal(entry.site.object, 'site');
    assert.equal(entry.site.id, customerSite);
    assert.equal(entry.site.permissions.admin, true);
    expectError(await customer.admin.api.post(`${installations('on-sites')}/${installation.id}/spaces`, { space: customerSpace }), 400, 'space');
    expectError(await customer.admin.api.post(sites, { siteId: 'no-such-site' }), 404);

    // The vendor is no member of the customer: the site by its id only.
    const listed = expectOk(await vendor.admin.api.get(`${integration('on-sites')}/sites?extended=true`));
    assert.equal(listed.count, 1);
    assert.equal(listed.items[0].site, customerSite);
    assert.equal(expectOk(await vendor.admin.api.get(`${sites}?extended=true`)).items[0].site, customerSite);
    assert.equal(expectOk(await customer.admin.api.get(`${sites}?extended=true`)).items[0].site.title, 'Customer site');
    assert.equal(expectOk(await customer.admin.api.get(sites)).items[0].site, customerSite);
    assert.equal((await customer.admin.api.delete(`${sites}/${customerSite}`)).status, 204);
    assert.equal(expectOk(await customer.admin.api.get(sites)).count, 0);
  });

  it('keeps the scopes an installation was approved with: a republish asking for more is pending until an admin of the installing organization approves', async () => {
    await publish('widening');
    const installation = await install('widening');
    const url = `${installations('widening')}/${installation.id}`;
    assert.equal(installation.status, 'active');
    assert.deepEqual(installation.scopes, ['space:content:read']);

    await publish('widening', { scopes: ['space:content:read', 'space:content:write', 'conversations:ingest'] });
    const pending = expectOk(await customer.admin.api.get(url));
    assertMatchesOpenApi('IntegrationInstallation', pending);
    assert.equal(pending.status, 'pending');
    assert.deepEqual(pending.scopes, ['space:content:read'], 'the new scopes are not in force');
    assert.deepEqual(expectOk(await customer.admin.api.get(integration('widening'))).scopes, [
      'space:content:read',
      'space:content:write',
      'conversations:ingest',
    ]);
    assert.deepEqual(expectOk(await vendor.admin.api.get(url)).scopes, ['space:content:read']);

    // Only the installing organization's admins approve: not its other members, not the vendor.
    const all = ['space:content:read', 'space:content:write', 'conversations:ingest'];
    expectError(await customer.members.read.api.patch(url, { scopes: all }), 403);
    expectError(await vendor.admin.api.patch(url, { scopes: all }), 403);
    expectError(await customer.admin.api.patch(url, { scopes: ['space:content:read', 'space:metadata:write'] }), 400, 'scopes');
    expectError(await customer.admin.api.patch(url, { scopes: ['no:such:scope'] }), 400, 'scopes');
    // Approving some keeps it pending; all, active.
    const some = expectOk(await customer.admin.api.patch(url, { scopes: ['space:content:read', 'space:content:write'] }));
    assert.deepEqual([some.status, some.scopes], ['pending', ['space:content:read', 'space:content:write']]);
    // Through the official client: its update body, plus `scopes`.
    const client: any = new GitBookAPI({ authToken: customer.admin.token, endpoint: stack.baseUrl });
    const { data: approved } = await client.integrations.updateIntegrationInstallation('widening', installation.id, { scopes: all });
    assert.deepEqual([approved.status, approved.scopes], ['active', all]);
    assert.deepEqual((await client.integrations.getIntegrationInstallationById('widening', installation.id)).data, approved);
    // Listed once delivered (or given up), with its outcome.
    await waitFor('the installation_setup event of the approval, settled', async () =>
      (expectOk(await vendor.admin.api.get(`${integration('widening')}/events`)).items as any[]).some(
        (event) =>
          ['success', 'failed'].includes(event.status) &&
          event.payload.type === 'installation_setup' &&
          event.payload.status === 'active' &&
          event.payload.previous?.status === 'pending',
      ),
    );

    // A republish asking for less narrows it at once, and needs no approval.
    await publish('widening', { scopes: ['space:content:write'] });
    const narrowed = expectOk(await customer.admin.api.get(url));
    assert.deepEqual([narrowed.status, narrowed.scopes], ['active', ['space:content:write']]);
    // What it no longer asks for is asked anew.
    await publish('widening', { scopes: ['space:content:write', 'space:content:read'] });
    assert.deepEqual(expectOk(await customer.admin.api.get(url)).status, 'pending');
  });

  it('answers 404 for installations under an unknown integration or installation', async () => {
    for (const path of [
      `${installations('no-such-integration')}/x`,
      `${installations('installable')}/no-such-installation/spaces`,
      `${installations('installable')}/no-such-installation/sites`,
      `${integration('no-such-integration')}/spaces`,
      `${integration('no-such-integration')}/sites`,
    ]) {
      expectError(await customer.admin.api.get(path), 404);
    }
    expectError(await customer.admin.api.patch(`${installations('installable')}/no-such-installation`, { externalIds: [] }), 404);
    expectError(await customer.admin.api.post(`${installations('installable')}/no-such-installation/spaces`, { space: customerSpace }), 404);
    assert.equal((await customer.admin.api.delete(`${installations('installable')}/no-such-installation`)).status, 204);
  });
});
