import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createEvent, EVENTS } from '@quire/async';
import { cleanupTestEnvironment, testBackendConfig, testEnvironment, waitFor, type TestEnvironment } from '@quire/testkit';
import type { IntegrationsConfig } from '../config';
import type { IntegrationDoc, IntegrationEventDoc } from '../db/models';
import type { OrgAccess } from '@quire/http';
import type { IntegrationsContext } from '../domain/context';
import { deliverEvent, requeuePendingEvents, signDelivery } from '../domain/delivery';
import { setDevMode } from '../domain/dev';
import { applyStreamEvent } from '../domain/event-intake';
import { installIntegration, installOnTarget, updateInstallation } from '../domain/installations';
import { integrationSigningSecret, newSealedSigningSecret, sealIntegrationSecrets } from '../domain/secrets';
import { startIdentity } from '@quire/identity';
import { startIntegrations } from '../service';
import { startTunnelRecorder, verifySignature, type TunnelRecorder } from './tunnel-recorder';

/*
 * Event recording and delivery at the domain level, against the real datastore and Redis: the
 * integrations service runs in this process (its worker and its stream subscription included),
 * integrations are rows written with the models, deliveries go to a recorder on 127.0.0.1.
 */

describe('integration events: recording and delivery (domain, real datastore and Redis)', () => {
  let env: TestEnvironment;
  let stop: () => Promise<void>;
  let ctx: IntegrationsContext;
  let identityService: Awaited<ReturnType<typeof startIdentity>>;
  let tunnel: TunnelRecorder;
  let counter = 0;

  const config = (): IntegrationsConfig => ({
    ...testBackendConfig(env),
    INTEGRATIONS_SECRETS_KEY: 'delivery-test-key-delivery-test-key-0123456789',
    INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: true,
    SCRIPT_MEMORY_LIMIT_MB: 64,
    SCRIPT_TIMEOUT_MS: 2_000,
    INTEGRATION_IMAGE_MAX_BYTES: 1_048_576,
    INTEGRATION_SCRIPT_MAX_BYTES: 5_242_880,
    SCRIPT_WORKERS: 2,
    SCRIPT_WORKER_HEAP_MB: 128,
    SCRIPT_QUEUE_MAX: 64,
    SCRIPT_CONCURRENCY_PER_INTEGRATION: 4,
    SCRIPT_CONCURRENCY_PER_ORGANIZATION: 8,
    INTEGRATION_ENDPOINT_RATE_PER_MINUTE: 300,
    ENDPOINT_SCRIPT_CPU_MS_PER_MINUTE: 20_000,
    DELIVERY_WORKER_CONCURRENCY: 16,
    DELIVERY_ACTIVE_PER_ORGANIZATION: 4,
    DELIVERY_SWEEP_MS: 30_000,
  });

  /** A published integration, written directly (the catalogue's publish is not under test here). */
  const newIntegration = async (fields: Partial<IntegrationDoc> = {}): Promise<IntegrationDoc> => {
    const name = `test-integration-${++counter}`;
    const now = new Date();
    const doc: IntegrationDoc = {
      _id: name,
      ownerOrganizationId: 'owner-org',
      version: 1,
      runtime: 'v1',
      title: `Test ${counter}`,
      description: '',
      visibility: 'public',
      target: 'all',
      scopes: ['space:content:read'],
      categories: [],
      blocks: '[]',
      blockDomains: [],
      hasBlocks: false,
      contentSources: '[]',
      hasContentSources: false,
      externalLinks: [],
      configurations: '{}',
      script: '',
      secrets: sealIntegrationSecrets(ctx.config, name, { API_KEY: 'sk-test' }),
      signingSecret: newSealedSigningSecret(ctx.config, name),
      previewImageFileIds: [],
      dev: null,
      createdAt: now,
      updatedAt: now,
      ...fields,
    } as IntegrationDoc;
    await ctx.models.Integration.create(doc);
    return doc;
  };
  const admin = (organizationId: string): OrgAccess => ({ organizationId, userId: `admin-of-${organizationId}`, role: 'admin' });
  const view = (integration: IntegrationDoc) => ({ integration, owner: admin(integration.ownerOrganizationId) });
  /** An admin of the installing organization: who changes a selection. */
  const installer = { orgAdmin: true, ownerAdmin: false };
  const eventsOf = (integrationName: string) => ctx.models.IntegrationEvent.find({ integrationName }).sort({ createdAt: 1 }).lean();
  /** A recorded, not yet delivered installation_setup event (as recordEvents writes one). */
  const pendingSetupEvent = (id: string, integrationName: string, installationId: string, organizationId: string): IntegrationEventDoc => {
    const now = new Date();
    return {
      _id: id,
      integrationName,
      installationId,
      organizationId,
      type: 'installation_setup',
      payload: JSON.stringify({ eventId: id, type: 'installation_setup', installationId, status: 'active' }),
      status: 'pending',
      attempts: 0,
      logs: [],
      deliveredTo: null,
      finishedAt: null,
      createdAt: now,
      updatedAt: now,
    };
  };
  const settled = (integrationName: string, count: number) =>
    waitFor(
      `${count} delivered events of ${integrationName}`,
      async () => {
        const events = await eventsOf(integrationName);
        if (events.length !== count || events.some((event) => event.status === 'pending')) return false;
        // The outcome is recorded a moment before its worker lets go of the event's lock.
        return (await ctx.redis.exists(...events.map((event) => `integration-delivery:${event._id}`))) === 0;
      },
      30_000,
    );

  /** A sample of the service's metrics, as GET /metrics serves them (0 until counted). */
  const sampleOf = async (series: string) => {
    const line = (await ctx.metrics.metrics()).split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };
  const runCounters = () =>
    Promise.all([
      sampleOf('quire_integration_deliveries_total{outcome="success"}'),
      sampleOf('quire_integration_delivery_duration_seconds_count{outcome="success"}'),
      sampleOf('quire_script_runs_total{outcome="ok"}'),
      sampleOf('quire_script_run_duration_seconds_count{outcome="ok"}'),
    ]);

  beforeAll(async () => {
    env = await testEnvironment();
    // Identity holds what installations' tokens may act with: selections are given to it.
    identityService = await startIdentity(testBackendConfig(env), { handleSignals: false });
    const running = await startIntegrations({ ...config(), IDENTITY_GRPC_ADDR: `127.0.0.1:${identityService.grpcPort}` }, { handleSignals: false });
    ctx = running.context;
    stop = running.stop;
    tunnel = await startTunnelRecorder();
  });

  afterAll(async () => {
    await stop?.();
    await identityService?.stop();
    await tunnel?.close();
    if (env) await cleanupTestEnvironment(env);
  });

  it('installs once when the same install runs twice at once, with one installation_setup', async () => {
    const integration = await newIntegration();
    const results = await Promise.all(Array.from({ length: 8 }, () => installIntegration(ctx, view(integration), admin('org-a'))));
    assert.equal(new Set(results.map((r) => r.installation._id)).size, 1);
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.equal(await ctx.models.Installation.countDocuments({ integrationName: integration._id }), 1);
    const events = await eventsOf(integration._id);
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'installation_setup');
    assert.deepEqual(JSON.parse(events[0].payload), {
      eventId: events[0]._id,
      type: 'installation_setup',
      installationId: results[0].installation._id,
      status: 'active',
    });
  });

  it('delivers to the dev tunnel what the runtime would get, signed, and records the trace', async () => {
    const integration = await newIntegration();
    await setDevMode(ctx, integration, { tunnelUrl: tunnel.url, all: false });
    const before = tunnel.received.length;
    const { installation } = await installIntegration(ctx, view(integration), admin('owner-org'));
    await settled(integration._id, 1);
    const [event] = await eventsOf(integration._id);
    assert.equal(event.status, 'success');
    assert.equal(event.deliveredTo, 'tunnel');
    assert.match(event.logs.map((l) => l.message).join('\n'), /The tunnel answered 200 in \d+ ms/);

    const got = tunnel.received.slice(before);
    assert.equal(got.length, 1);
    assert.equal(got[0].path, '/tunnel');
    assert.deepEqual(got[0].event, { eventId: event._id, type: 'installation_setup', installationId: installation._id, status: 'active' });
    assert.equal(got[0].environment.integration.name, integration._id);
    assert.equal(got[0].environment.installation.id, installation._id);
    assert.deepEqual(got[0].environment.secrets, { API_KEY: 'sk-test' });
    const secret = integrationSigningSecret(ctx.config, integration);
    assert.ok(verifySignature(secret, got[0].headers['x-quire-delivery-signature'], got[0].body), 'signed with the integration signing secret');
    assert.ok(!verifySignature('another-secret', got[0].headers['x-quire-delivery-signature'], got[0].body));
  });

  it('sends other organizations’ events to the script unless dev mode covers all', async () => {
    const integration = await newIntegration({
      script:
        'export default { async fetch(request) { const form = await request.formData(); const event = JSON.parse(form.get("event")); console.log("script got " + event.type + " signed " + /^t=\\d+,v1=[0-9a-f]{64}$/.test(request.headers.get("x-quire-delivery-signature"))); return new Response("ok"); } };',
    });
    await setDevMode(ctx, integration, { tunnelUrl: tunnel.url, all: false });
    const before = tunnel.received.length;
    const counted = await runCounters();
    await installIntegration(ctx, view(integration), admin('customer-org'));
    await settled(integration._id, 1);
    const [event] = await eventsOf(integration._id);
    assert.equal(event.status, 'success', JSON.stringify(event.logs));
    // Counted in the service's metrics: one delivery that succeeded, one script run that answered, each with its duration.
    assert.deepEqual(
      (await runCounters()).map((value, i) => value - counted[i]),
      [1, 1, 1, 1],
    );
    assert.equal(event.deliveredTo, 'runtime');
    assert.ok(
      event.logs.some((l) => l.message === 'script got installation_setup signed true'),
      JSON.stringify(event.logs),
    );
    assert.equal(tunnel.received.length, before, 'nothing went to the tunnel');

    await setDevMode(ctx, integration, { tunnelUrl: tunnel.url, all: true });
    await installIntegration(ctx, view(integration), admin('second-customer'));
    await settled(integration._id, 2);
    assert.equal(tunnel.received.length, before + 1);
  });

  it('turns a content update (announced twice for a merge) into one space_content_updated per installation', async () => {
    const integration = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    const other = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    const { installation } = await installIntegration(ctx, view(integration), admin('content-org'));
    const { installation: otherInstallation } = await installIntegration(ctx, view(other), admin('content-org'));
    await updateInstallation(ctx, integration, installation, installer, { space_selection: 'all' });
    // The other one is installed on the space itself.
    await ctx.models.TargetInstallation.create({
      _id: `target-${counter}`,
      installationId: otherInstallation._id,
      integrationName: other._id,
      organizationId: 'content-org',
      kind: 'space',
      targetId: 'space-1',
      status: 'active',
      configuration: '{}',
      externalIds: [],
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await settled(integration._id, 2);
    await settled(other._id, 1);

    const payload = { organizationId: 'content-org', spaceId: 'space-1', revisionId: 'rev-2', changeRequestId: 'cr-1' };
    const streamEvent = { id: 'stream-event' };
    await applyStreamEvent(ctx, createEvent(EVENTS.changeRequestMerged, payload, streamEvent));
    await applyStreamEvent(ctx, createEvent(EVENTS.spaceContentUpdated, payload, streamEvent));
    await applyStreamEvent(ctx, createEvent(EVENTS.spaceContentUpdated, payload, streamEvent));
    // Another organization's space with the same id changes nothing here.
    await applyStreamEvent(ctx, createEvent(EVENTS.spaceContentUpdated, { ...payload, organizationId: 'elsewhere' }, streamEvent));
    await settled(integration._id, 3);
    await settled(other._id, 2);
    for (const [name, installationId] of [
      [integration._id, installation._id],
      [other._id, otherInstallation._id],
    ]) {
      const updates = (await eventsOf(name)).filter((e) => e.type === 'space_content_updated');
      assert.equal(updates.length, 1, name);
      assert.deepEqual(JSON.parse(updates[0].payload), {
        eventId: updates[0]._id,
        type: 'space_content_updated',
        installationId,
        spaceId: 'space-1',
        revisionId: 'rev-2',
        updatedBy: [],
      });
      assert.equal(updates[0].status, 'success');
    }
  });

  it('turns a page view into one site_view per installation on the site, its visitor fields only', async () => {
    const onSite = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    const allSites = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    const otherSite = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    const paused = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    const org = 'site-view-org';
    const { installation } = await installIntegration(ctx, view(onSite), admin(org));
    await installOnTarget(ctx, onSite, installation, { kind: 'site', id: 'site-1', organizationId: org });
    // The same integration in another organization, on a site of the same id (ids never collide; a forged event must not cross).
    const { installation: elsewhere } = await installIntegration(ctx, view(onSite), admin('site-view-elsewhere'));
    await installOnTarget(ctx, onSite, elsewhere, { kind: 'site', id: 'site-1', organizationId: 'site-view-elsewhere' });
    const { installation: everywhere } = await installIntegration(ctx, view(allSites), admin(org));
    await updateInstallation(ctx, allSites, everywhere, installer, { site_selection: 'all' });
    // All spaces is not all sites.
    const { installation: spacesOnly } = await installIntegration(ctx, view(allSites), admin('site-view-spaces-only'));
    await updateInstallation(ctx, allSites, spacesOnly, installer, { space_selection: 'all' });
    const { installation: onOtherSite } = await installIntegration(ctx, view(otherSite), admin(org));
    await installOnTarget(ctx, otherSite, onOtherSite, { kind: 'site', id: 'site-2', organizationId: org });
    const { installation: pausedOne } = await installIntegration(ctx, view(paused), admin(org));
    await updateInstallation(ctx, paused, pausedOne, installer, { site_selection: 'all' });
    await ctx.models.Installation.updateOne({ _id: pausedOne._id }, { $set: { status: 'paused' } });
    await settled(onSite._id, 4);
    await settled(allSites._id, 4);
    await settled(otherSite._id, 2);
    await settled(paused._id, 2);

    const before = tunnel.received.length;
    const seen = {
      siteSpaceId: 'site-space-1',
      spaceId: 'space-1',
      pageId: 'page-1',
      url: 'https://docs.example.test/guide?from=search',
      visitor: {
        anonymousId: 'visitor-1',
        userAgent: 'Mozilla/5.0',
        ip: '203.0.113.7',
        language: 'fr',
        cookies: { theme: 'dark', count: '3' },
        claims: { email: 'secret@example.test' },
        token: 'never-sent',
      },
      secret: 'never-sent',
    };
    const payload = { organizationId: org, siteId: 'site-1', views: [seen] };
    const view1 = createEvent(EVENTS.siteViewed, payload, { id: 'site-view-stream-1' });
    await applyStreamEvent(ctx, view1);
    // Redelivered (at least once): nothing new.
    await applyStreamEvent(ctx, view1);
    // Not a view of this organization's site: nothing.
    await applyStreamEvent(ctx, createEvent(EVENTS.siteViewed, { ...payload, organizationId: 'site-view-forger' }, { id: 'site-view-forged' }));
    // Not a usable one: the event bus drops it (logged) before the intake.
    for (const unusable of [
      { ...payload, siteId: undefined },
      { ...payload, organizationId: undefined },
      { ...payload, siteId: ['site-1'] },
      { ...payload, views: [] },
      { ...payload, views: [{ ...seen, pageId: undefined }] },
      null,
    ]) {
      assert.equal(EVENTS.siteViewed.schema.safeParse(unusable).success, false);
    }
    await settled(onSite._id, 5);
    await settled(allSites._id, 5);

    const expected = (installationId: string, eventId: string) => ({
      eventId,
      type: 'site_view',
      installationId,
      siteId: 'site-1',
      siteSpaceId: 'site-space-1',
      spaceId: 'space-1',
      pageId: 'page-1',
      visitor: { anonymousId: 'visitor-1', cookies: {}, userAgent: 'Mozilla/5.0', ip: '203.0.113.7', language: 'fr' },
      url: 'https://docs.example.test/guide?from=search',
      referrer: '',
    });
    for (const [name, installationId] of [
      [onSite._id, installation._id],
      [allSites._id, everywhere._id],
    ]) {
      const views = (await eventsOf(name)).filter((e) => e.type === 'site_view');
      assert.equal(views.length, 1, name);
      assert.equal(views[0].installationId, installationId);
      assert.equal(views[0].organizationId, org);
      assert.deepEqual(JSON.parse(views[0].payload), expected(installationId, views[0]._id));
      assert.equal(views[0].status, 'success');
      // Delivered with the site installation it is about, when there is one.
      const delivered = tunnel.received.slice(before).find((d) => d.event.eventId === views[0]._id);
      assert.deepEqual(delivered?.event, expected(installationId, views[0]._id));
      assert.equal(delivered?.environment.siteInstallation?.site, name === onSite._id ? 'site-1' : undefined);
      assert.equal(delivered?.environment.spaceInstallation, undefined);
    }
    for (const name of [otherSite._id, paused._id]) assert.equal((await eventsOf(name)).filter((e) => e.type === 'site_view').length, 0, name);
    const ofInstallation = async (installationId: string) => ctx.models.IntegrationEvent.countDocuments({ installationId, type: 'site_view' });
    assert.equal(await ofInstallation(elsewhere._id), 0, 'another organization’s site installation');
    assert.equal(await ofInstallation(spacesOnly._id), 0, 'an installation on all spaces only');

    // Other views of the same page (one stream event carrying two) are events of their own; a referrer is kept.
    const two = createEvent(
      EVENTS.siteViewed,
      {
        ...payload,
        views: [
          { ...seen, referrer: 'https://search.example.test/' },
          { ...seen, pageId: 'page-2' },
        ],
      },
      { id: 'site-view-stream-2' },
    );
    await applyStreamEvent(ctx, two);
    await applyStreamEvent(ctx, two);
    await settled(onSite._id, 7);
    const views = (await eventsOf(onSite._id)).filter((e) => e.type === 'site_view' && e.installationId === installation._id);
    assert.equal(views.length, 3, 'one per view, each once');
    assert.deepEqual(views.map((e) => [JSON.parse(e.payload).pageId, JSON.parse(e.payload).referrer]).sort(), [
      ['page-1', ''],
      ['page-1', 'https://search.example.test/'],
      ['page-2', ''],
    ]);
  });

  it('turns a page rating into page_feedback for the installations on the site whose installer approved page:feedback:read', async () => {
    const reader = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true }, scopes: ['page:feedback:read'] });
    const viewsOnly = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true }, scopes: ['site:views:read'] });
    const unapproved = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true }, scopes: ['page:feedback:read'] });
    const org = 'page-feedback-org';
    const installed = new Map<string, string>();
    for (const integration of [reader, viewsOnly, unapproved]) {
      const { installation } = await installIntegration(ctx, view(integration), admin(org));
      await installOnTarget(ctx, integration, installation, { kind: 'site', id: 'site-rated', organizationId: org });
      installed.set(integration._id, installation._id);
    }
    // Its installer did not approve it (an installation's own scopes win over its integration's).
    await ctx.models.Installation.updateOne({ _id: installed.get(unapproved._id) }, { $set: { scopes: [] } });
    const before = new Map(await Promise.all([reader, viewsOnly, unapproved].map(async (i) => [i._id, (await eventsOf(i._id)).length] as const)));
    await settled(reader._id, before.get(reader._id)!);

    const rating = createEvent(
      EVENTS.pageFeedback,
      {
        organizationId: org,
        siteId: 'site-rated',
        siteSpaceId: 'site-space-rated',
        spaceId: 'space-rated',
        pageId: 'page-rated',
        rating: 'bad',
        url: 'https://docs.example.test/guide',
        visitor: { anonymousId: 'visitor-9', userAgent: 'Mozilla/5.0', ip: '203.0.113.9', cookies: {} },
      },
      { id: 'page-feedback-stream-1' },
    );
    await applyStreamEvent(ctx, rating);
    // Redelivered: nothing new.
    await applyStreamEvent(ctx, rating);
    await settled(reader._id, before.get(reader._id)! + 1);
    const ratings = async (name: string) => (await eventsOf(name)).filter((event) => event.type === 'page_feedback');
    const [recorded] = await ratings(reader._id);
    assert.equal(recorded.status, 'success');
    assert.deepEqual(JSON.parse(recorded.payload), {
      eventId: recorded._id,
      type: 'page_feedback',
      installationId: installed.get(reader._id),
      siteId: 'site-rated',
      spaceId: 'space-rated',
      pageId: 'page-rated',
      feedback: { rating: 'bad' },
      visitor: { anonymousId: 'visitor-9', cookies: {}, userAgent: 'Mozilla/5.0', ip: '203.0.113.9' },
      url: 'https://docs.example.test/guide',
      referrer: '',
    });
    assert.deepEqual([(await ratings(viewsOnly._id)).length, (await ratings(unapproved._id)).length], [0, 0], 'without page:feedback:read, no rating');
  });

  it('retries a failing tunnel with backoff and keeps every attempt in the trace', async () => {
    const integration = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    tunnel.answers.push(503, 502);
    await installIntegration(ctx, view(integration), admin('retry-org'));
    await settled(integration._id, 1);
    const [event] = await eventsOf(integration._id);
    assert.equal(event.status, 'success');
    assert.equal(event.attempts, 3);
    const messages = event.logs.map((l) => l.message);
    assert.deepEqual(
      messages.filter((m) => m.startsWith('The tunnel answered')).map((m) => m.replace(/ in \d+ ms.*/, '')),
      ['The tunnel answered 503', 'The tunnel answered 502', 'The tunnel answered 200'],
    );
  });

  it('does not run an event again once delivered (idempotent by id)', async () => {
    const integration = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    await installIntegration(ctx, view(integration), admin('idempotent-org'));
    await settled(integration._id, 1);
    const [event] = await eventsOf(integration._id);
    const before = tunnel.received.length;
    const skipped = await sampleOf('quire_integration_deliveries_total{outcome="skipped"}');
    assert.equal(await deliverEvent(ctx, event._id, { number: 1, last: true }), 'skipped');
    assert.equal(tunnel.received.length, before);
    assert.equal(await sampleOf('quire_integration_deliveries_total{outcome="skipped"}'), skipped + 1);
  });

  it('queues again a pending event whose job was lost (restart, Redis flushed)', async () => {
    const integration = await newIntegration({ dev: { tunnelUrl: tunnel.url, all: true } });
    await ctx.models.IntegrationEvent.create(pendingSetupEvent(`lost-event-${counter}`, integration._id, 'gone-installation', 'lost-org'));
    assert.ok((await requeuePendingEvents(ctx, 0)) >= 1);
    await settled(integration._id, 1);
    assert.equal((await eventsOf(integration._id))[0].status, 'success');
  });

  it('refuses a loopback tunnel, and never delivers to one, without INTEGRATIONS_ALLOW_PRIVATE_NETWORKS', async () => {
    const strict: IntegrationsContext = { ...ctx, config: { ...ctx.config, INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: false } };
    const integration = await newIntegration();
    for (const tunnelUrl of [tunnel.url, 'http://localhost:9/x', 'http://10.0.0.1/', 'http://169.254.169.254/latest', 'http://[::1]:8080/']) {
      await assert.rejects(setDevMode(strict, integration, { tunnelUrl, all: false }), (error: Error & { status?: number }) => {
        assert.equal(error.status, 400, tunnelUrl);
        assert.match(error.message, /tunnelUrl: .*not allowed/);
        return true;
      });
    }
    await assert.rejects(setDevMode(ctx, integration, { tunnelUrl: 'ftp://127.0.0.1/', all: false }), /tunnelUrl: only http and https/);
    // Set while allowed, then delivered by a service that does not allow it: failed at once, not retried.
    await setDevMode(ctx, integration, { tunnelUrl: tunnel.url, all: true });
    const event = pendingSetupEvent(`strict-event-${counter}`, integration._id, 'strict-installation', 'strict-org');
    await ctx.models.IntegrationEvent.create(event);
    assert.equal(await deliverEvent(strict, event._id, { number: 1, last: false }), 'done');
    const after = await ctx.models.IntegrationEvent.findById(event._id).lean();
    assert.equal(after?.status, 'failed');
    assert.match(after!.logs.map((l) => l.message).join('\n'), /could not be reached.*not allowed/);
  });

  it("checks a script's fetch like a tunnel: loopback refused without the setting, reached with it, redirects not followed", async () => {
    const strict: IntegrationsContext = { ...ctx, config: { ...ctx.config, INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: false } };
    const integration = await newIntegration({
      script: `export default { async fetch() {
        for (const url of ['${tunnel.url}', '${tunnel.url.replace('/tunnel', '/redirect')}', 'http://169.254.169.254/latest/meta-data', 'file:///etc/passwd']) {
          try { const answer = await fetch(url, { method: 'POST', body: 'x' }); console.log('reached ' + answer.status); }
          catch (error) { console.warn('refused ' + error.message); }
        }
        return new Response('ok');
      } };`,
    });
    const row = (id: string) => ({
      _id: id,
      integrationName: integration._id,
      installationId: 'fetching-installation',
      organizationId: 'fetching-org',
      type: 'installation_setup',
      payload: JSON.stringify({ eventId: id, type: 'installation_setup', installationId: 'fetching-installation', status: 'active' }),
      status: 'pending' as const,
      attempts: 0,
      logs: [],
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const messagesOf = async (id: string) => ((await ctx.models.IntegrationEvent.findById(id).lean())?.logs ?? []).map((l) => `${l.level} ${l.message}`);
    await ctx.models.IntegrationEvent.create(row(`strict-fetch-${counter}`));
    assert.equal(await deliverEvent(strict, `strict-fetch-${counter}`, { number: 1, last: true }), 'done');
    const refused = await messagesOf(`strict-fetch-${counter}`);
    assert.equal(refused.filter((m) => /^warn refused .*not allowed/.test(m)).length, 3, refused.join('\n'));
    assert.ok(
      refused.some((m) => /^warn refused .*only http and https/.test(m)),
      refused.join('\n'),
    );
    assert.ok(!refused.some((m) => m.startsWith('info reached')));

    const before = tunnel.received.length;
    await ctx.models.IntegrationEvent.create(row(`allowed-fetch-${counter}`));
    assert.equal(await deliverEvent(ctx, `allowed-fetch-${counter}`, { number: 1, last: true }), 'done');
    const allowed = await messagesOf(`allowed-fetch-${counter}`);
    // The recorder answers 400 to what is not a dispatch request: the script reached it.
    assert.ok(allowed.includes('info reached 400'), allowed.join('\n'));
    assert.ok(allowed.includes('info reached 302'), `the redirect is answered, not followed: ${allowed.join('\n')}`);
    assert.equal(tunnel.received.length, before);
  });

  it('signs as documented: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    const at = Date.UTC(2024, 0, 1) + 500;
    const expected = createHmac('sha256', 'k').update('1704067200.{"a":1}').digest('hex');
    assert.equal(signDelivery('k', '{"a":1}', at), `t=1704067200,v1=${expected}`);
  });
});
