import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createEventBus, EVENTS, type EventBus } from '@quire/async';
import { createLogger, type Database } from '@quire/runtime';
import { assertMatchesOpenApi, expectOk, sharedTestStack, waitFor, type TestOrganization, type TestStack } from '@quire/testkit';
import { startTunnelRecorder } from './tunnel-recorder';

/** The published script: answers 200 to whatever it gets. */
const SCRIPT = `export default { async fetch(request) { await request.formData(); return new Response('ok'); } };`;

/**
 * A page view of a published site (the `site.viewed` stream event publishing tells) becomes
 * GitBook's `site_view` for the installations on that site, through the whole stack: sites made
 * through the gateway, the view published on the stream the services share, the events read
 * back from the integration's event list.
 */
describe('integrations: site_view from the views of a published site', () => {
  let stack: TestStack;
  let bus: EventBus;
  let db: Database;
  let vendor: TestOrganization<never>;
  let customer: TestOrganization<never>;
  const NAME = 'site-view-recorder';
  const OTHER = 'site-view-other';

  const publish = (name: string, organization: string) =>
    vendor.admin.api.post(`/v1/integrations/${name}`, {
      organization,
      title: name,
      description: 'Records site views',
      scopes: [],
      script: SCRIPT,
      visibility: 'public',
    });
  /** The integration's events (its owner's admins read every installation's). */
  const eventsOf = async (name: string): Promise<any[]> => expectOk(await vendor.admin.api.get(`/v1/integrations/${name}/events?limit=1000`)).items;
  const siteViewsOf = async (name: string, installationId: string) =>
    (await eventsOf(name)).filter((event) => event.payload.type === 'site_view' && event.installationId === installationId);
  const installOnSite = async (org: TestOrganization<never>, name: string, siteId: string) => {
    const installation = expectOk(await org.admin.api.post(`/v1/integrations/${name}/installations`, { organization: org.id }), 201);
    expectOk(await org.admin.api.post(`/v1/integrations/${name}/installations/${installation.id}/sites`, { siteId }), 201);
    return installation;
  };

  beforeAll(async () => {
    // The last test's dev tunnel is on 127.0.0.1.
    stack = await sharedTestStack({ INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
    vendor = await stack.organization({ domain: 'site-view-vendor.test', title: 'Site view vendor', roles: [] });
    customer = await stack.organization({ domain: 'site-view-customer.test', title: 'Site view customer', roles: [] });
    db = await stack.serviceDatabase('integrations');
    bus = createEventBus({ redisUrl: stack.env.redisUrl, prefix: stack.env.redisPrefix, logger: createLogger('test', 'silent') });
    expectOk(await publish(NAME, vendor.id));
    expectOk(await publish(OTHER, vendor.id));
  });

  afterAll(async () => {
    await bus?.close();
    await db?.close();
    await stack?.stop();
  });

  it('records one site_view per view for the installation on the viewed site, none for other sites or organizations', async () => {
    const site = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/sites`, { title: 'Viewed' }), 201);
    const otherSite = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/sites`, { title: 'Not viewed' }), 201);
    const customerSite = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/sites`, { title: 'Customer site' }), 201);
    const onSite = await installOnSite(vendor, NAME, site.id);
    const onOtherSite = await installOnSite(vendor, OTHER, otherSite.id);
    // The customer's installation is on its own site, and on all its sites.
    const inCustomer = await installOnSite(customer, NAME, customerSite.id);
    expectOk(await customer.admin.api.patch(`/v1/integrations/${NAME}/installations/${inCustomer.id}`, { site_selection: 'all' }));

    // One view per event here (publishing gathers a few per event: its own tests).
    const view = (pageId: string, { organizationId = vendor.id, siteId = site.id, ...extra }: Record<string, unknown> = {}) => ({
      organizationId: organizationId as string,
      siteId: siteId as string,
      views: [viewOf(pageId, extra)],
    });
    const viewOf = (pageId: string, extra: Record<string, unknown>) => ({
      siteSpaceId: 'site-space-of-the-test',
      spaceId: 'space-of-the-test',
      pageId,
      url: `${stack.baseUrl}/viewed/${pageId}?q=1`,
      referrer: 'https://search.example.test/',
      // What GitBook's EventVisitor has, and what it has not (never forwarded).
      visitor: {
        anonymousId: 'anon-1',
        userAgent: 'Mozilla/5.0 (test)',
        ip: '198.51.100.4',
        language: 'en',
        cookies: { quire_share: 'a-secret-share-key' },
        claims: { email: 'reader@example.test' },
      },
      ...extra,
    });
    const first = await bus.publish(EVENTS.siteViewed, view('page-first'), { organizationId: vendor.id });
    let recorded: any[] = [];
    await waitFor('the view recorded', async () => {
      recorded = await siteViewsOf(NAME, onSite.id);
      return recorded.length > 0 && recorded.every((event) => event.status);
    });
    assert.equal(recorded.length, 1);
    const [event] = recorded;
    assertMatchesOpenApi('IntegrationEvent', event);
    assert.equal(event.status, 'success');
    assert.deepEqual(event.payload, {
      eventId: event.id,
      type: 'site_view',
      installationId: onSite.id,
      siteId: site.id,
      siteSpaceId: 'site-space-of-the-test',
      spaceId: 'space-of-the-test',
      pageId: 'page-first',
      visitor: { anonymousId: 'anon-1', cookies: {}, userAgent: 'Mozilla/5.0 (test)', ip: '198.51.100.4', language: 'en' },
      url: `${stack.baseUrl}/viewed/page-first?q=1`,
      referrer: 'https://search.example.test/',
    });

    // The same stream event again (at-least-once delivery), and a forged one naming another
    // organization's site; then another view, to know the stream got this far.
    await bus.publish(EVENTS.siteViewed, first.payload, { id: first.id, organizationId: vendor.id });
    await bus.publish(EVENTS.siteViewed, view('page-forged', { siteId: customerSite.id }), { organizationId: vendor.id });
    await bus.publish(EVENTS.siteViewed, view('page-second', { referrer: undefined }), { organizationId: vendor.id });
    await waitFor('the second view recorded', async () => {
      recorded = await siteViewsOf(NAME, onSite.id);
      return recorded.some((e) => e.payload.pageId === 'page-second' && e.status);
    });
    assert.deepEqual(recorded.map((e) => e.payload.pageId).sort(), ['page-first', 'page-second'], 'the redelivered view is recorded once');
    assert.equal(recorded.find((e) => e.payload.pageId === 'page-second').payload.referrer, '', 'no referrer: empty, as GitBook requires one');

    // A view of the customer's own site reaches its installation, and is the fence for it.
    await bus.publish(EVENTS.siteViewed, view('page-customer', { organizationId: customer.id, siteId: customerSite.id }), { organizationId: customer.id });
    let customerViews: any[] = [];
    await waitFor("the customer's view recorded", async () => {
      customerViews = await siteViewsOf(NAME, inCustomer.id);
      return customerViews.some((e) => e.payload.pageId === 'page-customer');
    });
    assert.deepEqual(
      customerViews.map((e) => e.payload.pageId),
      ['page-customer'],
      "another organization's installation (on its own site and on all its sites) gets none of the vendor's views",
    );
    assert.deepEqual(await siteViewsOf(OTHER, onOtherSite.id), [], 'an installation on another site of the organization gets nothing');
  });

  it('records a real page view of a published site, through the gateway', async () => {
    const space = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/spaces`, { title: 'Viewed space' }), 201);
    const cr = expectOk(await vendor.admin.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Page' }), 201);
    const written = expectOk(
      await vendor.admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
        changes: [{ type: 'insert_page', title: 'Welcome', markdown: 'Hello.' }],
      }),
    );
    expectOk(await vendor.admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));
    const site = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/sites`, { title: 'Really viewed', spaces: [space.id] }), 201);
    const published = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/sites/${site.id}/publish`));
    // The organization's installation of the integration (the first test's) now also covers this site.
    const installation = await installOnSite(vendor, NAME, site.id);

    const page = await fetch(`${published.urls.published}?from=test`, { headers: { 'user-agent': 'Viewer/1.0', referer: 'https://referrer.example.test/' } });
    assert.equal(page.status, 200);
    let views: any[] = [];
    await waitFor('the real view recorded', async () => {
      views = (await siteViewsOf(NAME, installation.id)).filter((event) => event.payload.siteId === site.id);
      return views.length > 0 && views.every((event) => event.status);
    });
    assert.equal(views.length, 1);
    const { payload } = views[0];
    assert.equal(payload.siteId, site.id);
    assert.equal(payload.spaceId, space.id);
    assert.equal(payload.pageId, written.changes[0].page.id);
    assert.equal(payload.url, `${published.urls.published}?from=test`);
    assert.equal(payload.referrer, 'https://referrer.example.test/');
    assert.equal(payload.visitor.userAgent, 'Viewer/1.0');
    assert.deepEqual(payload.visitor.cookies, {});
    assert.match(payload.visitor.anonymousId, /^[\w-]{22}$/);
  });

  it("delivers another organization's event ahead of one organization's flood of events (deliveries take turns)", async () => {
    // Organization A (the vendor): its integration in dev mode on a site of its own, whose tunnel
    // holds every delivery until the test opens it; the site gets a flood of views.
    let open!: () => void;
    const tunnel = await startTunnelRecorder({ until: new Promise<void>((resolve) => (open = resolve)) });
    try {
      const FLOODED = 'site-view-flooded';
      expectOk(await publish(FLOODED, vendor.id));
      assert.equal((await vendor.admin.api.put(`/v1/integrations/${FLOODED}/dev`, { tunnelUrl: tunnel.url })).status, 204);
      const flooded = expectOk(await vendor.admin.api.post(`/v1/orgs/${vendor.id}/sites`, { title: 'Flooded' }), 201);
      await installOnSite(vendor, FLOODED, flooded.id);
      // Organization B (the customer): another integration, run by the service, on one of its sites.
      const single = expectOk(await customer.admin.api.post(`/v1/orgs/${customer.id}/sites`, { title: 'Viewed once' }), 201);
      const installation = await installOnSite(customer, OTHER, single.id);
      const publishView = (organizationId: string, siteId: string, pageId: string) =>
        bus.publish(
          EVENTS.siteViewed,
          {
            organizationId,
            siteId,
            views: [
              {
                siteSpaceId: 'site-space-of-the-test',
                spaceId: 'space-of-the-test',
                pageId,
                url: `${stack.baseUrl}/${pageId}`,
                visitor: { anonymousId: 'anon-1', userAgent: '', ip: '', cookies: {} },
              },
            ],
          },
          { organizationId },
        );

      const FLOOD = 40;
      // A's views as recorded, delivered or not (the API lists an event once it is settled).
      const floodOf = async () =>
        (
          await db
            .collection<{ _id: string; integrationName: string; type: string; status: string }>('integration_events')
            .find({ integrationName: FLOODED, type: 'site_view' })
            .toArray()
        ).map((event) => ({
          id: event._id,
          status: event.status,
        }));
      for (let i = 0; i < FLOOD; i++) await publishView(vendor.id, flooded.id, `flood-${i}`);
      await waitFor("A's flood recorded", async () => (await floodOf()).length === FLOOD);
      // A's deliveries hang at its tunnel (a queue in arrival order would be stuck behind them); B's one view.
      await publishView(customer.id, single.id, 'single');
      let waitingOfA = -1;
      await waitFor("B's view delivered", async () => {
        const delivered = (await siteViewsOf(OTHER, installation.id)).some((event) => event.status === 'success');
        if (delivered) waitingOfA = (await floodOf()).filter((event) => event.status === 'pending').length;
        return delivered;
      });
      assert.equal(waitingOfA, FLOOD, "B's event was delivered while every one of A's waited");
      assert.ok(tunnel.received.length <= 4, `A had ${tunnel.received.length} deliveries under way at once (DELIVERY_ACTIVE_PER_ORGANIZATION: 4)`);

      // Once its tunnel answers, every one of A's is delivered: none is lost or left parked for long.
      open();
      await waitFor("A's flood delivered", async () => (await floodOf()).every((event) => event.status === 'success'), 45_000);
      // The API lists them all now, each with its outcome.
      const listed = (await eventsOf(FLOODED)).filter((event) => event.payload.type === 'site_view');
      assert.deepEqual(
        listed.map((event) => event.status),
        Array(FLOOD).fill('success'),
      );
    } finally {
      open();
      await tunnel.close();
    }
  });
});
