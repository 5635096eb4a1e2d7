import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { publishing } from '@quire/proto';
import { ClientError, createGrpcClient, grpcStatus } from '@quire/runtime';
import { cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import type { PublishingConfig } from '../config';
import { defaultAdaptiveSchema, templateConditions, validateAdaptiveSchema } from '../domain/adaptive-schema';
import { checkCondition, conditionHolds } from '../domain/conditions';
import { slugify } from '@quire/http';
import { positionNextTo, uniquePath } from '../domain/positions';
import { applySpaceEvent } from '../domain/space-events';
import { createEvent, EVENTS } from '@quire/async';
import { startPublishing } from '../service';

describe('conditions (jsep AST, no eval)', () => {
  it('accepts member access, literals, equality, comparisons, !, && and ||', () => {
    for (const expression of [
      'visitor.claims.beta === true',
      'visitor.claims.beta == true && !visitor.claims.unsigned.internal',
      'visitor.claims.plan != "free" || visitor.claims.seats >= 10',
      'visitor.claims["beta"] !== false',
      '(visitor.claims.age > 17) && (visitor.claims.age <= 65)',
    ]) {
      assert.equal(checkCondition(expression).ok, true, expression);
    }
  });

  it('refuses what it cannot evaluate safely, saying why', () => {
    for (const [expression, why] of [
      ['visitor.claims.beta ===', /not a valid expression/],
      ['alert(1)', /function calls|unknown name/],
      ['visitor.claims.x.toString()', /function calls/],
      ['process.env', /unknown name "process"/],
      ['visitor.constructor', /not allowed/],
      ['visitor.claims[visitor.key]', /literal key/],
      ['visitor.claims.a + 1', /operator "\+"/],
      ['a; b', /.+/],
      ['visitor.claims.a = 1', /.+/],
    ] as const) {
      const checked = checkCondition(expression);
      assert.equal(checked.ok, false, expression);
      if (!checked.ok) assert.match(checked.message, why, expression);
    }
  });

  it('evaluates against the visitor claims', () => {
    const claims = { beta: true, plan: 'pro', seats: 12, unsigned: { internal: false } };
    assert.equal(conditionHolds(undefined, {}), true);
    assert.equal(conditionHolds('visitor.claims.beta === true', claims), true);
    assert.equal(conditionHolds('visitor.claims.beta === true', {}), false);
    assert.equal(conditionHolds('visitor.claims.plan == "pro" && visitor.claims.seats > 10', claims), true);
    assert.equal(conditionHolds('visitor.claims.seats < 10 || visitor.claims.unsigned.internal', claims), false);
    assert.equal(conditionHolds('!visitor.claims.unsigned.internal', claims), true);
    assert.equal(conditionHolds('visitor.claims.missing == null', claims), true);
    assert.equal(conditionHolds('visitor.claims.seats > "9"', claims), false, 'no coercion between types');
    assert.equal(conditionHolds('visitor.claims.__proto__', claims), false);
    assert.equal(conditionHolds('not valid ===', claims), false, 'an unreadable condition hides');
  });
});

describe('adaptive schema', () => {
  it('accepts boolean claims with an unsigned object and no additional properties', () => {
    const checked = validateAdaptiveSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        beta: { type: 'boolean', description: 'Beta tester' },
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { internal: { type: 'boolean', description: 'Staff' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
    assert.equal(checked.ok, true);
    assert.equal(validateAdaptiveSchema(defaultAdaptiveSchema()).ok, true);
  });

  it('refuses anything else with a message naming jsonSchema', () => {
    for (const schema of [
      'not an object',
      { type: 'object', properties: {} },
      { type: 'object', properties: { beta: { type: 'string' } }, additionalProperties: false },
      { type: 'array', additionalProperties: false },
      { type: 'object', properties: { beta: { type: 'boolean', minimum: 'x' } }, additionalProperties: false },
      { type: 'object', properties: { beta: { type: 'boolean' } }, additionalProperties: false },
      { type: 'object', properties: { unsigned: { type: 'object', properties: {} } }, additionalProperties: false },
      { type: 'object', properties: { 'a.b': { type: 'boolean' } }, additionalProperties: false },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, additionalProperties: false },
      { type: 'object', properties: 3, additionalProperties: false },
    ]) {
      const checked = validateAdaptiveSchema(schema);
      assert.equal(checked.ok, false, JSON.stringify(schema));
      if (!checked.ok) assert.match(checked.message, /^jsonSchema\b/);
    }
  });

  it('derives template conditions the evaluator understands', () => {
    const checked = validateAdaptiveSchema({
      type: 'object',
      properties: {
        beta: { type: 'boolean', description: 'Beta tester' },
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { internal: { type: 'boolean', description: 'Staff' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
    assert.ok(checked.ok);
    const items = templateConditions(checked.schema);
    const conditions = items.map((i) => i.condition);
    assert.ok(conditions.includes('visitor.claims.beta === true'));
    assert.ok(conditions.includes('visitor.claims.unsigned.internal === true'));
    for (const item of items) {
      assert.equal(typeof item.description, 'string');
      assert.equal(checkCondition(item.condition).ok, true);
    }
    assert.equal(conditionHolds('visitor.claims.beta === true', { beta: true }), true);
  });
});

describe('ordering and paths', () => {
  it('places items between neighbours and asks for a renumbering when they touch', () => {
    const siblings = [
      { _id: 'a', position: 1024 },
      { _id: 'b', position: 2048 },
    ];
    assert.equal(positionNextTo(siblings, 'b', 'before'), 1536);
    assert.equal(positionNextTo(siblings, 'a', 'before'), 512);
    assert.equal(positionNextTo(siblings, 'b', 'after'), 2560);
    assert.equal(
      positionNextTo(
        [
          { _id: 'a', position: 1 },
          { _id: 'b', position: 1 + Number.EPSILON },
        ],
        'b',
        'before',
      ),
      null,
    );
    assert.equal(slugify('  Getting Started: Ünïcode!  '), 'getting-started-unicode');
    assert.equal(uniquePath('api', ['api', 'api-2']), 'api-3');
  });
});

describe('publishing gRPC and space events (real datastore)', () => {
  let env: TestEnvironment;
  let service: Awaited<ReturnType<typeof startPublishing>>;
  let client: publishing.PublishingServiceClient;

  beforeAll(async () => {
    env = await testEnvironment();
    const config: PublishingConfig = { ...testBackendConfig(env), SITES_BASE_DOMAIN: 'sites.test', PUBLISHING_ALLOW_PRIVATE_NETWORKS: false };
    service = await startPublishing(config, { handleSignals: false, subscribeToEvents: false });
    client = createGrpcClient(publishing.PublishingServiceDefinition, {
      address: `127.0.0.1:${service.grpcPort}`,
      secret: config.INTERNAL_HMAC_SECRET,
      caller: 'test',
      deadlineMs: 5_000,
    });
  });

  afterAll(async () => {
    await service?.stop();
    if (env) await cleanupTestEnvironment(env);
  });

  it('returns sites in one batch and detaches the site spaces of deleted spaces', async () => {
    const { Site, SiteSpace } = service.context.models;
    const now = new Date();
    const base = { organizationId: 'org1', type: 'basic' as const, visibility: 'public' as const, published: true, agentsContext: 'included' as const };
    await Site.create([
      { ...base, _id: 'site1', title: 'First', visitorAuth: { privateKey: 'k', backend: 'custom' }, createdAt: now, updatedAt: now },
      { ...base, _id: 'site2', title: 'Second', published: false, visitorAuth: { privateKey: 'k', backend: 'custom' }, createdAt: now, updatedAt: now },
    ]);
    const siteSpace = { siteId: 'site1', organizationId: 'org1', sectionId: null, position: 1, createdAt: now };
    await SiteSpace.create([
      { ...siteSpace, _id: 'ss1', spaceId: 'space1', path: 'one' },
      { ...siteSpace, _id: 'ss2', spaceId: 'space1', path: 'two' },
      { ...siteSpace, _id: 'ss3', spaceId: 'space2', path: 'three' },
    ]);

    const { sites } = await client.batchGetSites({ ids: ['site1', 'site2', 'missing'] });
    assert.deepEqual(sites.map((s) => [s.id, s.title, s.published, s.organizationId]).sort(), [
      ['site1', 'First', true, 'org1'],
      ['site2', 'Second', false, 'org1'],
    ]);
    assert.equal(sites[0].createTime instanceof Date, true);

    assert.equal((await client.detachSpaces({ spaceIds: ['space1'] })).detachedCount, 2);
    assert.equal((await client.detachSpaces({ spaceIds: ['space1'] })).detachedCount, 0, 'detaching twice is harmless');
    assert.deepEqual(
      (await SiteSpace.find({ siteId: 'site1' }).lean()).map((s) => s._id),
      ['ss3'],
    );
    await assert.rejects(
      client.batchGetSites({ ids: Array.from({ length: 1001 }, (_, i) => `s${i}`) }),
      (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
    );
  });

  it('counts the sites of each organization with one query per batch, in request order', async () => {
    const { Site } = service.context.models;
    const now = new Date();
    const site = (id: string, organizationId: string) => ({
      _id: id,
      organizationId,
      type: 'basic' as const,
      title: id,
      visibility: 'public' as const,
      published: false,
      agentsContext: 'included' as const,
      visitorAuth: { privateKey: 'k', backend: 'custom' as const },
      createdAt: now,
      updatedAt: now,
    });
    await Site.create([site('ca1', 'count-a'), site('ca2', 'count-a'), site('ca3', 'count-a'), site('cb1', 'count-b')]);

    const aggregate = Site.aggregate.bind(Site);
    const queries: unknown[] = [];
    Site.aggregate = ((pipeline: any) => (queries.push(pipeline), aggregate(pipeline))) as typeof Site.aggregate;
    try {
      const { counts } = await client.batchCountSites({ organizationIds: ['count-a', 'count-b', 'count-a', 'nobody', 'count-b'] });
      assert.deepEqual(counts, [3, 1, 3, 0, 1], 'one count per requested id, repeated ids included');
      assert.equal(queries.length, 1, 'one query for the whole batch');
      assert.deepEqual((queries[0] as any)[0].$match.organizationId.$in, ['count-a', 'count-b', 'nobody'], 'distinct ids only');
      assert.deepEqual((await client.batchCountSites({ organizationIds: [] })).counts, []);
      assert.equal(queries.length, 1, 'an empty batch queries nothing');
    } finally {
      Site.aggregate = aggregate;
    }

    await Site.deleteOne({ _id: 'ca2' });
    assert.deepEqual((await client.batchCountSites({ organizationIds: ['count-a'] })).counts, [2], 'deleted sites no longer count');
    const most = Array.from({ length: 1000 }, (_, i) => (i === 999 ? 'count-b' : `org-${i}`));
    assert.equal((await client.batchCountSites({ organizationIds: most })).counts.at(-1), 1, '1000 ids is the largest batch');
    for (const organizationIds of [
      [...most, 'one-too-many'],
      ['count-a', ''],
    ]) {
      await assert.rejects(client.batchCountSites({ organizationIds }), (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT);
    }
  });

  it('hides site spaces of trashed spaces, shows them again on restore and removes them on purge', async () => {
    const { SiteSpace } = service.context.models;
    const ctx = service.context;
    const now = new Date();
    await SiteSpace.create({
      _id: 'ev1',
      siteId: 'site1',
      organizationId: 'org1',
      sectionId: null,
      spaceId: 'space9',
      path: 'nine',
      position: 9,
      createdAt: now,
    });
    const state = async () => (await SiteSpace.findById('ev1').lean())?.spaceDeleted;
    const event = (definition: typeof EVENTS.spaceDeleted | typeof EVENTS.spaceRestored | typeof EVENTS.spacePurged) =>
      createEvent(definition, { organizationId: 'org1', spaceId: 'space9' });
    await applySpaceEvent(ctx, event(EVENTS.spaceDeleted));
    assert.equal(await state(), true);
    await applySpaceEvent(ctx, event(EVENTS.spaceDeleted));
    assert.equal(await state(), true, 'redelivery changes nothing');
    await applySpaceEvent(ctx, event(EVENTS.spaceRestored));
    assert.equal(await state(), false);
    assert.equal(EVENTS.spaceDeleted.schema.safeParse({ nonsense: true }).success, false, 'payloads without a space id never reach it (the bus drops them)');
    await applySpaceEvent(ctx, event(EVENTS.spacePurged));
    assert.equal(await state(), undefined);

    await SiteSpace.create({
      _id: 'ev2',
      siteId: 'site1',
      organizationId: 'org1',
      sectionId: null,
      spaceId: 'space8',
      path: 'eight',
      position: 8,
      createdAt: now,
    });
    await applySpaceEvent(ctx, createEvent(EVENTS.spaceTransferred, { spaceId: 'space8', fromOrganizationId: 'org1', toOrganizationId: 'org2' }));
    assert.equal(await SiteSpace.exists({ _id: 'ev2' }), null, "a transferred space leaves the old organization's sites");
  });
  it('resolves the published address of a space on the site of an active share link only', async () => {
    const { Site, SiteSection, SiteSpace, ShareLink } = service.context.models;
    const now = new Date();
    const site = {
      organizationId: 'org1',
      type: 'basic' as const,
      visibility: 'share-link' as const,
      agentsContext: 'included' as const,
      visitorAuth: { privateKey: 'k', backend: 'custom' as const },
      createdAt: now,
      updatedAt: now,
    };
    await Site.create([
      { ...site, _id: 'flat', title: 'Flat', published: true, basename: 'kb' },
      { ...site, _id: 'sectioned', title: 'Sectioned', published: true, basename: 'docs' },
      { ...site, _id: 'draft', title: 'Draft', published: false },
    ]);
    const siteSpace = { organizationId: 'org1', createdAt: now };
    await SiteSection.create([
      { _id: 'main', siteId: 'sectioned', organizationId: 'org1', title: 'Main', path: 'main', position: 1, createdAt: now },
      { _id: 'api', siteId: 'sectioned', organizationId: 'org1', title: 'API', path: 'api', position: 2, createdAt: now },
    ]);
    await SiteSpace.create([
      { ...siteSpace, _id: 'f1', siteId: 'flat', sectionId: null, spaceId: 'guides', path: 'guides', position: 1 },
      { ...siteSpace, _id: 'f2', siteId: 'flat', sectionId: null, spaceId: 'api-space', path: 'api-ref', position: 2 },
      { ...siteSpace, _id: 's1', siteId: 'sectioned', sectionId: 'main', spaceId: 'guides', path: 'guides', position: 3 },
      { ...siteSpace, _id: 's2', siteId: 'sectioned', sectionId: 'api', spaceId: 'v1', path: 'v1', position: 4 },
      { ...siteSpace, _id: 's3', siteId: 'sectioned', sectionId: 'api', spaceId: 'api-space', path: 'v2', position: 5 },
      { ...siteSpace, _id: 'd1', siteId: 'draft', sectionId: null, spaceId: 'guides', path: 'guides', position: 6 },
    ]);
    const link = { organizationId: 'org1', name: 'Link', createdAt: now };
    await ShareLink.create([
      { ...link, _id: 'l1', siteId: 'flat', key: 'flat-key', active: true },
      { ...link, _id: 'l2', siteId: 'sectioned', key: 'sectioned-key', active: true },
      { ...link, _id: 'l3', siteId: 'flat', key: 'revoked-key', active: false },
      { ...link, _id: 'l4', siteId: 'draft', key: 'draft-key', active: true },
    ]);
    const resolve = (spaceId: string, shareKey: string, organizationId = 'org1') => client.resolveShareKey({ spaceId, shareKey, organizationId });

    assert.deepEqual(await resolve('guides', 'flat-key'), { resolved: true, siteId: 'flat', publishedUrl: 'https://sites.test/org1/kb/?share=flat-key' });
    assert.equal((await resolve('api-space', 'flat-key')).publishedUrl, 'https://sites.test/org1/kb/api-ref/?share=flat-key');
    // In a sectioned site: the section's path, then the variant's unless it is the default.
    assert.equal((await resolve('guides', 'sectioned-key')).publishedUrl, 'https://sites.test/org1/docs/?share=sectioned-key');
    assert.equal((await resolve('api-space', 'sectioned-key')).publishedUrl, 'https://sites.test/org1/docs/api/v2/?share=sectioned-key');
    assert.deepEqual(await resolve('guides', 'draft-key'), { resolved: true, siteId: 'draft', publishedUrl: '' }, 'unpublished: no address yet');

    const nothing = { resolved: false, siteId: '', publishedUrl: '' };
    assert.deepEqual(await resolve('guides', 'revoked-key'), nothing, 'inactive link');
    assert.deepEqual(await resolve('guides', 'no-such-key'), nothing, 'unknown key');
    assert.deepEqual(await resolve('v1', 'flat-key'), nothing, 'space not on that site');
    assert.deepEqual(await resolve('guides', 'flat-key', 'org2'), nothing, 'key of another organization');
    await SiteSpace.updateOne({ _id: 'f1' }, { $set: { spaceDeleted: true } });
    assert.deepEqual(await resolve('guides', 'flat-key'), nothing, 'space in the trash');
    for (const missing of [{ spaceId: '' }, { shareKey: '' }, { organizationId: '' }]) {
      await assert.rejects(
        client.resolveShareKey({ spaceId: 'guides', shareKey: 'flat-key', organizationId: 'org1', ...missing }),
        (e: ClientError) => e.code === grpcStatus.INVALID_ARGUMENT,
      );
    }
  });
});
