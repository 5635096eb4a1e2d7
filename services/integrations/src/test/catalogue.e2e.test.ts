import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import type { Database } from '@quire/runtime';
import {
  assertMatchesOpenApi,
  expectError,
  expectEvery,
  expectOk,
  startTestStack,
  type ApiClient,
  type TestOrganization,
  type TestStack,
} from '@quire/testkit';
import { decryptSecret, integrationSecrets, integrationSigningSecret } from '../domain/secrets';

/** A 1×1 PNG, and the other image types by their first bytes. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64');
const SCRIPT = 'export default { async fetch(request) { console.log("hello"); return new Response("ok"); } };';
const IMAGE_MAX = 4096;
const SCRIPT_MAX = 8192;

/** The catalogue through the gateway: publish, list, get, unpublish, files, secrets. */
describe('integrations: the catalogue through the gateway', () => {
  let stack: TestStack;
  let org: TestOrganization<'admin' | 'read' | 'guest'>;
  let admin: ApiClient;
  let coAdmin: ApiClient;
  let reader: ApiClient;
  let guest: ApiClient;
  let outsider: ApiClient;
  let outsiderOrg: string;
  let db: Database;
  const HOSTNAME = 'catalogue-co';

  const publishBody = (overrides: Record<string, unknown> = {}) => ({
    organization: org.id,
    title: 'Recorder',
    description: 'Records events',
    scopes: ['space:content:read'],
    script: SCRIPT,
    ...overrides,
  });
  const publish = (client: ApiClient, name: string, overrides: Record<string, unknown> = {}) => client.post(`/v1/integrations/${name}`, publishBody(overrides));
  const expect400 = async (answer: Promise<{ status: number; body: any }>, field: string) => expectError(await answer, 400, field);

  beforeAll(async () => {
    stack = await startTestStack({ INTEGRATION_IMAGE_MAX_BYTES: String(IMAGE_MAX), INTEGRATION_SCRIPT_MAX_BYTES: String(SCRIPT_MAX) });
    org = await stack.organization({ domain: 'catalogue.test', title: 'Catalogue Co', roles: ['admin', 'read', 'guest'] });
    admin = org.admin.api;
    coAdmin = org.members.admin.api;
    reader = org.members.read.api;
    guest = org.members.guest.api;
    outsider = org.outsider.api;
    outsiderOrg = org.outsider.organizationId;
    expectOk(await admin.patch(`/v1/orgs/${org.id}`, { hostname: HOSTNAME }));
    db = await stack.serviceDatabase('integrations');
  });

  afterAll(async () => {
    await db?.close();
    await stack?.stop();
  });

  it('publishes what GitBook’s CLI sends (organization by hostname, runtime v2, icon, previews, blocks…) and answers the Integration', async () => {
    const configurations = {
      account: {
        properties: {
          channel: { type: 'string', title: 'Channel', description: 'Where to post', default: 'general', enum: ['general', 'random'] },
          retries: { type: 'number', default: 3 },
          verbose: { type: 'boolean' },
          connect: { type: 'button', title: 'Connect', callback_url: '/oauth', button_text: 'Connect' },
        },
        required: ['channel'],
      },
      space: { componentId: 'space-config' },
    };
    const published = expectOk(
      await publish(admin, 'recorder', {
        organization: HOSTNAME,
        runtime: 'v2',
        summary: '# Recorder\nLong form.',
        icon: PNG,
        previewImages: [PNG, GIF],
        visibility: 'public',
        target: 'space',
        scopes: ['space:content:read', 'space:metadata:read'],
        categories: ['analytics', 'content'],
        blocks: [
          {
            id: 'embed',
            title: 'Embed',
            description: 'An embed',
            urlUnfurl: ['https://www.Example.com/*', '*.figma.com/file'],
            markdown: { codeblock: 'rec', body: 'content' },
          },
        ],
        contentSources: [{ id: 'source', title: 'Source', configuration: { componentId: 'configure' } }],
        externalLinks: [{ url: 'https://example.com/docs', label: 'Docs' }],
        configurations,
        secrets: { API_KEY: 'sk-live-do-not-leak', OTHER: 'also-secret' },
        contentSecurityPolicy: { 'script-src': "'self'", 'img-src': '*' },
      }),
    );
    assert.equal(published.object, 'integration');
    assert.equal(published.name, 'recorder');
    assert.equal(published.version, 1);
    assert.equal(published.owner.id, org.id, 'the hostname names the organization');
    assert.equal(published.owner.object, 'organization');
    assert.equal(published.permissions.admin, true);
    assert.equal(published.visibility, 'public');
    assert.equal(published.target, 'space');
    assert.equal(published.verified, false);
    assert.equal(published.summary, '# Recorder\nLong form.');
    assert.deepEqual(published.scopes, ['space:content:read', 'space:metadata:read']);
    assert.deepEqual(published.categories, ['analytics', 'content']);
    assert.equal(published.blocks[0].urlUnfurl.length, 2);
    assert.deepEqual(published.contentSources, [{ id: 'source', title: 'Source', configuration: { componentId: 'configure' } }]);
    assert.deepEqual(published.configurations, configurations);
    assert.deepEqual(published.externalLinks, [{ url: 'https://example.com/docs', label: 'Docs' }]);
    assert.equal(published.contentSecurityPolicy, "script-src 'self'; img-src *");
    assert.equal(published.urls.location, `${stack.baseUrl}/v1/integrations/recorder`);
    assert.equal(published.previewImages.length, 2);
    for (const key of ['script', 'secrets', 'signingSecret']) assert.equal(key in published, false, `${key} is never answered`);
    assert.doesNotMatch(JSON.stringify(published), /sk-live-do-not-leak|also-secret/);
    assertMatchesOpenApi('Integration', published);
    assert.deepEqual(expectOk(await admin.get('/v1/integrations/recorder')), published);

    // The icon and previews are served without a token, as what they are, cached for good.
    const icon = await fetch(published.urls.icon);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/png');
    assert.match(icon.headers.get('cache-control') ?? '', /immutable/);
    assert.equal(icon.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await icon.arrayBuffer()), Buffer.from(PNG, 'base64'));
    const again = await fetch(published.urls.icon, { headers: { 'if-none-match': icon.headers.get('etag')! } });
    assert.equal(again.status, 304);
    const gif = await fetch(published.previewImages[1]);
    assert.equal(gif.headers.get('content-type'), 'image/gif');
    assert.equal((await fetch(`${stack.baseUrl}/v1/public/integrations/recorder/files/nope`)).status, 404);
  });

  it('stores the secrets and the signing secret encrypted (AES-256-GCM), keeps them across a republish without secrets, never answers them', async () => {
    const stored = await db.collection('integrations').findOne({ _id: 'recorder' as never });
    assert.ok(stored);
    const raw = JSON.stringify(stored);
    assert.doesNotMatch(raw, /sk-live-do-not-leak|also-secret/, 'no secret in clear at rest');
    assert.match(stored.secrets, /^v1\./);
    assert.match(stored.signingSecret, /^v1\./);
    const config = { INTEGRATIONS_SECRETS_KEY: readFileSync(path.join(stack.dataDir, 'integrations-secrets-key'), 'utf8').trim() };
    const doc = stored as never as { _id: string; secrets: string; signingSecret: string };
    assert.deepEqual(integrationSecrets(config, doc), { API_KEY: 'sk-live-do-not-leak', OTHER: 'also-secret' });
    const signing = integrationSigningSecret(config, doc);
    assert.ok(signing.length >= 32);
    // Bound to their integration and purpose: a sealed value moved elsewhere does not open.
    assert.throws(() => decryptSecret(config, stored.secrets, 'integration/other/secrets'));
    assert.throws(() => integrationSecrets({ INTEGRATIONS_SECRETS_KEY: 'x'.repeat(48) }, doc));

    const republished = expectOk(await publish(admin, 'recorder', { visibility: undefined, icon: PNG }));
    assert.equal(republished.visibility, 'public', 'visibility left out: kept');
    const after = (await db.collection('integrations').findOne({ _id: 'recorder' as never })) as never as typeof doc;
    assert.deepEqual(integrationSecrets(config, after), { API_KEY: 'sk-live-do-not-leak', OTHER: 'also-secret' }, 'secrets left out: kept');
    assert.equal(integrationSigningSecret(config, after), signing, 'the signing secret is made once');
    expectOk(await publish(admin, 'recorder', { visibility: 'public', secrets: { API_KEY: 'rotated' } }));
    const rotated = (await db.collection('integrations').findOne({ _id: 'recorder' as never })) as never as typeof doc;
    assert.deepEqual(integrationSecrets(config, rotated), { API_KEY: 'rotated' });
    assert.doesNotMatch(stack.output(), /sk-live-do-not-leak|rotated"/, 'never logged');
  });

  it('counts every publish: the version grows by one each time, also for publishes sent at once', async () => {
    const first = expectOk(await publish(admin, 'counter', { visibility: 'public' }));
    assert.equal(first.version, 1);
    const answers = await Promise.all([publish(admin, 'counter'), publish(coAdmin, 'counter'), publish(admin, 'counter'), publish(coAdmin, 'counter')]);
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answers.map((a) => a.body.version).sort(), [2, 3, 4, 5]);
    assert.equal(expectOk(await admin.get('/v1/integrations/counter')).version, 5);

    // A new name published twice at once: one integration, version 2.
    const twins = await Promise.all([publish(admin, 'twins', { visibility: 'public' }), publish(admin, 'twins', { visibility: 'public' })]);
    for (const answer of twins) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(expectOk(await admin.get('/v1/integrations/twins')).version, 2);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    await expect400(publish(admin, 'bad name!'), 'integrationName');
    await expect400(publish(admin, 'x'.repeat(101)), 'integrationName');
    await expect400(publish(admin, 'ok', { title: 'x' }), 'title');
    await expect400(publish(admin, 'ok', { description: 'd'.repeat(101) }), 'description');
    await expect400(publish(admin, 'ok', { organization: undefined }), 'organization');
    await expect400(publish(admin, 'ok', { scopes: ['space:everything'] }), 'scopes.0');
    await expect400(publish(admin, 'ok', { runtime: 'v9' }), 'runtime');
    await expect400(publish(admin, 'ok', { visibility: 'secret' }), 'visibility');
    await expect400(publish(admin, 'ok', { target: 'page' }), 'target');
    await expect400(publish(admin, 'ok', { categories: ['games'] }), 'categories.0');
    await expect400(publish(admin, 'ok', { script: '' }), 'script');
    await expect400(publish(admin, 'ok', { previewImages: [PNG, PNG, PNG, PNG] }), 'previewImages');
    await expect400(publish(admin, 'ok', { externalLinks: [{ url: 'javascript:alert(1)', label: 'x' }] }), 'externalLinks.0.url');
    await expect400(
      publish(admin, 'ok', {
        blocks: [
          { id: 'a', title: 'One' },
          { id: 'a', title: 'Two' },
        ],
      }),
      'blocks.1.id',
    );
    await expect400(publish(admin, 'ok', { contentSources: [{ id: 's', title: 'Source' }] }), 'contentSources.0.configuration');
    await expect400(publish(admin, 'ok', { secrets: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`K${i}`, 'v'])) }), 'secrets');
    await expect400(publish(admin, 'ok', { contentSecurityPolicy: { 'script src': 'x' } }), 'contentSecurityPolicy');

    // The script compiles, or the compiler says why; and it fits.
    const broken = await publish(admin, 'ok', { script: 'export default { fetch( {' });
    expectError(broken, 400, 'script');
    assert.match(broken.body.error.message, /SyntaxError/);
    await expect400(publish(admin, 'ok', { script: `${SCRIPT}//${'x'.repeat(SCRIPT_MAX)}` }), 'script');
    await expect400(publish(admin, 'ok', { script: 'import x from "node:fs"; export default x;' }), 'script');

    // Images: base64 of a PNG, JPEG, GIF or WebP within the size limit; never SVG.
    await expect400(publish(admin, 'ok', { icon: 'not base64!' }), 'icon');
    await expect400(publish(admin, 'ok', { icon: SVG }), 'icon');
    await expect400(publish(admin, 'ok', { icon: Buffer.from('plain text').toString('base64') }), 'icon');
    const huge = Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.alloc(IMAGE_MAX)]).toString('base64');
    await expect400(publish(admin, 'ok', { icon: huge }), 'icon');
    await expect400(publish(admin, 'ok', { previewImages: [PNG, SVG] }), 'previewImages.1');

    // Configuration schemas of GitBook's shape that compile as JSON Schemas.
    const account = (schema: unknown) => publish(admin, 'ok', { configurations: { account: schema } });
    await expect400(account({ properties: { a: { type: 'string' } }, required: ['missing'] }), 'configurations.account');
    await expect400(account({ properties: { a: { type: 'string' } }, required: ['a', 'a'] }), 'configurations.account.required');
    await expect400(account({ properties: { a: { type: 'date' } } }), 'configurations.account');
    await expect400(account({ properties: { a: { type: 'string', enum: ['x'], default: 'y' } } }), 'configurations.account.properties.a.default');
    await expect400(account({ required: [] }), 'configurations.account');
    await expect400(publish(admin, 'ok', { configurations: { site: { properties: { n: { type: 'number', default: 'three' } } } } }), 'configurations.site');
    assert.equal((await admin.get('/v1/integrations/ok')).status, 404, 'nothing was published');
  });

  it('lets only admins of the owning organization publish, republish and unpublish, and leaks nothing to others', async () => {
    expectOk(await publish(admin, 'owned', { visibility: 'public' }));
    expectOk(await publish(admin, 'hidden', { visibility: 'private' }));

    expectError(await publish(reader, 'by-reader'), 403);
    expectError(await publish(guest, 'by-guest'), 404);
    expectError(await publish(outsider, 'by-outsider'), 404, 'Organization');
    expectError(await publish(admin, 'unknown-org', { organization: 'no-such-organization' }), 404, 'Organization');
    expectError(await publish(admin, 'unknown-org', { organization: 'NoSuchId000000000000' }), 404, 'Organization');

    // Another organization's name: 403 when the caller can see the integration, 404 when not.
    const taken = await publish(outsider, 'owned', { organization: outsiderOrg });
    expectError(taken, 403);
    assert.doesNotMatch(taken.body.error.message, new RegExp(org.id));
    expectError(await publish(outsider, 'hidden', { organization: outsiderOrg }), 404, 'Integration');
    expectError(await publish(reader, 'owned'), 403);
    assert.equal(expectOk(await admin.get('/v1/integrations/owned')).version, 1, 'nothing changed');

    // Unpublishing: members who are not admins are refused; outsiders learn nothing of a private one.
    expectError(await reader.delete('/v1/integrations/owned'), 403);
    expectError(await outsider.delete('/v1/integrations/owned'), 403);
    assert.equal((await outsider.delete('/v1/integrations/hidden')).status, 204);
    expectOk(await admin.get('/v1/integrations/hidden'));
    assert.equal((await coAdmin.delete('/v1/integrations/hidden')).status, 204, 'any admin of the owner');
    assert.equal((await admin.get('/v1/integrations/hidden')).status, 404);
  });

  it('shows private integrations to their owner’s members only, and unlisted ones to everyone but not in lists', async () => {
    expectOk(await publish(admin, 'members-only', { visibility: 'private', title: 'Members only' }));
    expectOk(await publish(admin, 'by-link', { visibility: 'unlisted', title: 'By link' }));

    const seenByReader = expectOk(await reader.get('/v1/integrations/members-only'));
    assert.equal(seenByReader.permissions.admin, false);
    assert.equal(seenByReader.owner.id, org.id);
    expectError(await outsider.get('/v1/integrations/members-only'), 404);
    expectError(await guest.get('/v1/integrations/members-only'), 404);

    const byLink = expectOk(await outsider.get('/v1/integrations/by-link'));
    assert.equal(byLink.permissions.admin, false);
    // The owner as an outsider sees it: nothing of what only its members should know.
    assert.deepEqual(byLink.owner.emailDomains, []);
    assert.equal(byLink.owner.permissions.admin, false);
    assert.equal(byLink.owner.billing, undefined);

    const names = async (client: ApiClient, query = '') => expectOk(await client.get(`/v1/integrations?limit=1000${query}`)).items.map((i: any) => i.name);
    const forOutsider = await names(outsider);
    assert.equal(forOutsider.includes('members-only'), false);
    assert.equal(forOutsider.includes('by-link'), false);
    assert.ok(forOutsider.includes('owned'));
    const forReader = await names(reader);
    assert.ok(forReader.includes('members-only') && forReader.includes('by-link'));
    assert.equal((await names(guest)).includes('members-only'), false);
    assert.deepEqual(await names(outsider, `&owner=${org.id}&search=only`), []);
    assert.deepEqual(await names(reader, `&owner=${org.id}&search=only`), ['members-only']);
  });

  it('lists in name order with keyset pages, a constant count and every filter of GitBook’s listIntegrations', async () => {
    const catalogue: Array<[string, Record<string, unknown>]> = [
      ['f-analytics', { title: 'Analytics Tool', categories: ['analytics'], target: 'site', scopes: ['site:views:read'] }],
      ['f-blocks', { title: 'Figma Blocks', blocks: [{ id: 'figma', title: 'Figma', urlUnfurl: ['https://figma.com/file/*'] }], target: 'space' }],
      ['f-sources', { title: 'Sources', contentSources: [{ id: 'src', title: 'Source', configuration: { componentId: 'c' } }], target: 'organization' }],
      ['f-everywhere', { title: 'Everywhere', target: 'all', categories: ['collaboration'], scopes: ['space:content:write'] }],
      ['f-theirs', { title: 'Their Tool', organization: outsiderOrg, categories: ['analytics'] }],
    ];
    for (const [name, overrides] of catalogue) {
      const client = overrides.organization === outsiderOrg ? outsider : admin;
      expectOk(await publish(client, name, { visibility: 'public', ...overrides }));
    }
    const names = async (query: string) => {
      const body = expectOk(await outsider.get(`/v1/integrations?limit=1000&search=f-${query}`));
      return body.items.map((i: any) => i.name);
    };
    assert.deepEqual(await names(''), ['f-analytics', 'f-blocks', 'f-everywhere', 'f-sources', 'f-theirs']);
    assert.deepEqual(await names('&category=analytics'), ['f-analytics', 'f-theirs']);
    assert.deepEqual(await names('&blocks=true'), ['f-blocks']);
    assert.deepEqual(await names('&blocks=false'), ['f-analytics', 'f-everywhere', 'f-sources', 'f-theirs']);
    assert.deepEqual(await names('&contentSources=true'), ['f-sources']);
    assert.deepEqual(await names('&contentSources=false&blocks=false'), ['f-analytics', 'f-everywhere', 'f-theirs']);
    assert.deepEqual(await names('&blockDomain=figma.com'), ['f-blocks']);
    assert.deepEqual(await names('&blockDomain=example.org'), []);
    assert.deepEqual(await names(`&owner=${outsiderOrg}`), ['f-theirs']);
    assert.deepEqual(await names('&scope=site:views:read'), ['f-analytics']);
    assert.deepEqual(await names('&scope=space:content:write'), ['f-everywhere']);
    // f-theirs was published without a target: `all`, which may be installed on a site too.
    assert.deepEqual(await names('&target=site'), ['f-analytics', 'f-everywhere', 'f-theirs']);
    assert.deepEqual(await names('&target=all'), ['f-everywhere', 'f-theirs']);
    assert.deepEqual(await names('&target=organization'), ['f-everywhere', 'f-sources', 'f-theirs']);
    // Search by title too, any case.
    const byTitle = expectOk(await outsider.get('/v1/integrations?search=FIGMA')).items.map((i: any) => i.name);
    assert.deepEqual(byTitle, ['f-blocks']);
    expectEvery(expectOk(await outsider.get('/v1/integrations?category=analytics')).items, (i: any) => i.categories.includes('analytics'));

    // Pages of two, walked to the end: every integration once, in name order, the same count throughout.
    const all = expectOk(await admin.get('/v1/integrations?limit=1000'));
    const walked: string[] = [];
    let page: string | undefined;
    do {
      const body = expectOk(await admin.get(`/v1/integrations?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`));
      assert.equal(body.count, all.count);
      assert.ok(body.items.length <= 2);
      walked.push(...body.items.map((i: any) => i.name));
      page = body.next?.page;
    } while (page);
    assert.deepEqual(
      walked,
      all.items.map((i: any) => i.name),
    );
    assert.deepEqual(walked, [...walked].sort());
    for (const item of all.items) assertMatchesOpenApi('Integration', item);
    assert.equal(all.items.find((i: any) => i.name === 'f-theirs').permissions.admin, false);
    assert.equal(all.items.find((i: any) => i.name === 'f-blocks').permissions.admin, true);

    await expect400(outsider.get('/v1/integrations?category=games'), 'category');
    await expect400(outsider.get('/v1/integrations?blockDomain=a/b'), 'blockDomain');
    await expect400(outsider.get('/v1/integrations?blocks=maybe'), 'blocks');
    await expect400(outsider.get('/v1/integrations?target=page'), 'target');
    await expect400(outsider.get('/v1/integrations?scope=all'), 'scope');
    await expect400(outsider.get('/v1/integrations?limit=1001'), 'limit');
    await expect400(outsider.get('/v1/integrations?page=forged'), 'page');
  });

  it('answers 404 for an unknown name, 204 for any DELETE, and unpublishing removes installations, events and files', async () => {
    expectError(await admin.get('/v1/integrations/never-published'), 404, 'Integration');
    assert.equal((await admin.delete('/v1/integrations/never-published')).status, 204);

    const published = expectOk(await publish(admin, 'doomed', { visibility: 'public', icon: PNG }));
    // What hangs on it, written straight to the database: this suite does not depend on the installation routes.
    const now = new Date();
    await db.collection('installations').insertOne({
      _id: 'inst-doomed' as never,
      integrationName: 'doomed',
      organizationId: org.id,
      status: 'active',
      createdAt: now,
      updatedAt: now,
    });
    await db.collection('target_installations').insertOne({
      _id: 'target-doomed' as never,
      installationId: 'inst-doomed',
      integrationName: 'doomed',
      organizationId: org.id,
      kind: 'space',
      targetId: 'space1',
      status: 'active',
      createdAt: now,
      updatedAt: now,
    });
    await db.collection('integration_events').insertOne({
      _id: 'event-doomed' as never,
      integrationName: 'doomed',
      installationId: 'inst-doomed',
      organizationId: org.id,
      type: 'installation_setup',
      payload: '{}',
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    });
    const counts = () =>
      Promise.all(
        ['integrations', 'integration_files', 'installations', 'target_installations', 'integration_events'].map((name) =>
          db.collection(name).countDocuments(name === 'integrations' ? { _id: 'doomed' as never } : { integrationName: 'doomed' }),
        ),
      );
    assert.deepEqual(await counts(), [1, 1, 1, 1, 1]);
    assert.equal((await admin.delete('/v1/integrations/doomed')).status, 204);
    assert.deepEqual(await counts(), [0, 0, 0, 0, 0]);
    expectError(await admin.get('/v1/integrations/doomed'), 404);
    assert.equal((await fetch(published.urls.icon)).status, 404);
    assert.equal((await admin.delete('/v1/integrations/doomed')).status, 204, 'again: still 204');
  });

  it('works with GitBook’s official client unchanged', async () => {
    const api: any = new GitBookAPI({ authToken: org.admin.token, endpoint: stack.baseUrl });
    const { data: created } = await api.integrations.publishIntegration('official-client', {
      runtime: 'v2',
      title: 'Official',
      description: 'Published with @gitbook/api',
      scopes: ['space:content:read'],
      script: SCRIPT,
      organization: org.id,
      visibility: 'public',
      previewImages: [],
    });
    assert.equal(created.name, 'official-client');
    const { data: read } = await api.integrations.getIntegrationByName('official-client');
    assert.equal(read.version, 1);
    const { data: listed } = await api.integrations.listIntegrations({ search: 'official', limit: 10 });
    assert.deepEqual(
      listed.items.map((i: any) => i.name),
      ['official-client'],
    );
    await api.integrations.unpublishIntegration('official-client');
    await assert.rejects(
      api.integrations.getIntegrationByName('official-client'),
      (error: any) => error.status === 404 || error.statusCode === 404 || /404/.test(String(error)),
    );
  });
});
