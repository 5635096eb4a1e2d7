import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createEventBus } from '@quire/async';
import { freePort } from '@quire/datastore';
import { bootstrapAdmin, startIdentity, withIdentityAdmin } from '@quire/identity';
import { content } from '@quire/proto';
import { ClientError, createGrpcClient, createLogger, grpcStatus, PRINCIPAL_HEADER, SIGNATURE_HEADER, signPrincipal, type BackendConfig } from '@quire/runtime';
import { apiClient, cleanupTestEnvironment, testBackendConfig, testEnvironment, type TestEnvironment } from '@quire/testkit';
import type { ContentContext } from '../kernel';
import { markdownSections } from '../search/search-sections';
import { purgeSpace, startContent } from '../service';

/**
 * What the insights service uses to translate spaces (GetSpaceContent, CreateSpace and
 * WriteSpacePages) and what publishing uses to serve published sites (GetSpaceContent with
 * files and evaluated bodies, SearchSpaceContent) of content's gRPC server, against the real
 * datastore with the real identity service beside it; checked against content's REST API too.
 */
describe('content service: space content over gRPC (real datastore, real identity)', () => {
  let env: TestEnvironment;
  let config: BackendConfig;
  let identityService: Awaited<ReturnType<typeof startIdentity>>;
  let service: Awaited<ReturnType<typeof startContent>>;
  let grpc: content.ContentServiceClient<{ deadline?: number; retry?: boolean }>;
  let ada: string;
  let ORG: string;
  let OTHER_ORG: string;
  let collectionId: string;
  /** A space with nested pages, a file, variables and computed (OpenAPI) pages. */
  let source: { id: string; firstRevision: string; revision: string };

  const as = (userId: string) => {
    const { value, signature } = signPrincipal(config.INTERNAL_HMAC_SECRET, { userId, tokenId: 't' });
    return { [PRINCIPAL_HEADER]: value, [SIGNATURE_HEADER]: signature };
  };
  const call = async (method: string, path: string, body?: unknown) =>
    apiClient(`http://127.0.0.1:${service.httpPort}`).request(method, path, { headers: as(ada), body });
  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const response = await call(method, path, body);
    assert.equal(response.status, status, `${method} ${path}: ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const newSpace = async (title: string) => (await ok('POST', `/v1/orgs/${ORG}/spaces`, { title }, 201)).id as string;
  /** Applies `changes` to the space's content through a merged change request. */
  const commit = async (spaceId: string, changes: unknown[]) => {
    const cr = await ok('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'edit' }, 201);
    await ok('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, { changes });
    await ok('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`);
  };
  const currentRevision = async (spaceId: string) => (await ok('GET', `/v1/spaces/${spaceId}/content`)).id as string;
  const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages)]);
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const rejectsWith = (promise: Promise<unknown>, code: number, message?: RegExp) =>
    assert.rejects(promise, (error: ClientError) => {
      assert.equal(error.code, code, `${grpcStatus[error.code]}: ${error.details}`);
      if (message) assert.match(error.details, message);
      return true;
    });
  let keys = 0;
  /** A CreateSpace request for ORG with a fresh idempotency key. */
  const createRequest = (fields: Partial<content.CreateSpaceRequest> = {}): content.CreateSpaceRequest => ({
    organizationId: ORG,
    title: 'Translation',
    emoji: '',
    language: '',
    createdBy: ada,
    parentId: '',
    copyRevisionId: '',
    idempotencyKey: `translation:${Date.now()}:${(keys += 1)}`,
    ...fields,
  });
  /** The pages of a read as a write that keeps them all (no content). */
  const keepAll = (pages: content.ContentPage[]): content.PageWrite[] =>
    pages.map((page) => ({
      id: page.id,
      parentId: page.parentId,
      hasContent: false,
      title: '',
      description: '',
      body: '',
      slug: '',
      emoji: '',
      hidden: false,
    }));
  const withContent = (page: content.ContentPage, fields: Partial<content.PageWrite> = {}): content.PageWrite => ({
    id: page.id,
    parentId: page.parentId,
    hasContent: true,
    title: page.title,
    description: page.description,
    body: page.body,
    slug: page.slug,
    emoji: page.emoji,
    hidden: page.hidden,
    ...fields,
  });
  const byTitle = (read: content.GetSpaceContentResponse, title: string) => {
    const page = read.pages.find((candidate) => candidate.title === title);
    assert.ok(page, `no page ${title} in ${read.pages.map((p) => p.title).join(', ')}`);
    return page;
  };

  beforeAll(async () => {
    env = await testEnvironment();
    const contentGrpcPort = await freePort();
    const identityConfig = testBackendConfig(env, { CONTENT_GRPC_ADDR: `127.0.0.1:${contentGrpcPort}` });
    identityService = await startIdentity(identityConfig, { handleSignals: false });
    config = testBackendConfig(env, { GRPC_PORT: contentGrpcPort, IDENTITY_GRPC_ADDR: `127.0.0.1:${identityService.grpcPort}` });
    service = await startContent(config, { handleSignals: false });
    grpc = createGrpcClient(content.ContentServiceDefinition, {
      address: `127.0.0.1:${service.grpcPort}`,
      secret: config.INTERNAL_HMAC_SECRET,
      caller: 'test',
      deadlineMs: 60_000,
    });
    await withIdentityAdmin(identityConfig, async (ctx) => {
      const admin = await bootstrapAdmin(ctx, { email: 'ada@translate.test', organizationTitle: 'One' });
      [ada, ORG] = [admin.userId, admin.organizationId];
      OTHER_ORG = (await bootstrapAdmin(ctx, { email: 'ada@translate.test', organizationTitle: 'Two' })).organizationId;
    });
    collectionId = (await ok('POST', `/v1/orgs/${ORG}/collections`, { title: 'Translations' }, 201)).id;

    const id = await newSpace('Handbook');
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1.0.0' },
      paths: { '/pets': { get: { tags: ['pets'], summary: 'List pets', responses: { '200': { description: 'The pets' } } } } },
      components: { schemas: { Pet: { type: 'object', properties: { name: { type: 'string' } } } } },
    };
    await commit(id, [
      { type: 'insert_files', files: [{ name: 'pets.json', contentType: 'application/json', data: Buffer.from(JSON.stringify(spec)).toString('base64') }] },
      { type: 'insert_page', ref: 'intro', title: 'Introduction', markdown: '# Welcome\n\nHello.', description: 'Start here', emoji: '1f44b' },
      { type: 'insert_page', ref: 'guide', title: 'Guide', markdown: 'The guide.', variables: { level: '1' } },
      { type: 'insert_page', ref: 'install', title: 'Install', markdown: 'Run the installer.', into: 'guide', noRobotsIndex: true },
      { type: 'insert_page', title: 'Deep', markdown: 'Deep down.', into: 'install', hidden: true, noIndex: true },
      { type: 'insert_page', title: 'Configure', markdown: 'Edit the file.', into: 'guide' },
      { type: 'update_variables', variables: { product: 'Quire' } },
    ]);
    const firstRevision = await currentRevision(id);
    await ok('POST', `/v1/spaces/${id}/content/template`, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'pets' } } } }, 201);
    source = { id, firstRevision, revision: await currentRevision(id) };
  });

  afterAll(async () => {
    await service?.stop();
    await identityService?.stop();
    await cleanupTestEnvironment(env);
  });

  it('GetSpaceContent: the page tree in pre-order with every body; computed pages without one', async () => {
    const read = await grpc.getSpaceContent({ spaceId: source.id, revisionId: '' });
    assert.equal(read.spaceId, source.id);
    assert.equal(read.organizationId, ORG);
    assert.equal(read.revisionId, source.revision);
    assert.equal(read.title, 'Handbook');
    assert.equal(read.language, '');

    // The same pages, in the same pre-order, as the REST API presents them.
    const rest = flat((await ok('GET', `/v1/spaces/${source.id}/content?computed=false`)).pages);
    assert.deepEqual(
      read.pages.map((page) => page.id),
      rest.map((page) => page.id),
    );
    const ids = new Map(read.pages.map((page) => [page.title, page.id]));
    assert.deepEqual(
      read.pages.slice(0, 5).map((page) => [page.title, page.parentId]),
      [
        ['Introduction', ''],
        ['Guide', ''],
        ['Install', ids.get('Guide')],
        ['Deep', ids.get('Install')],
        ['Configure', ids.get('Guide')],
      ],
    );
    const intro = byTitle(read, 'Introduction');
    assert.deepEqual(
      {
        body: intro.body,
        bodyHash: intro.bodyHash,
        kind: intro.kind,
        description: intro.description,
        emoji: intro.emoji,
        slug: intro.slug,
        hidden: intro.hidden,
        noIndex: intro.noIndex,
        noRobotsIndex: intro.noRobotsIndex,
      },
      {
        body: '# Welcome\n\nHello.',
        bodyHash: sha256('# Welcome\n\nHello.'),
        kind: 'document',
        description: 'Start here',
        emoji: '1f44b',
        slug: 'introduction',
        hidden: false,
        noIndex: false,
        noRobotsIndex: false,
      },
    );
    assert.equal(byTitle(read, 'Deep').hidden, true);
    // The indexing flags as stored, the same as the REST pages answer them.
    assert.deepEqual(
      ['Install', 'Deep'].map((title) => [byTitle(read, title).noIndex, byTitle(read, title).noRobotsIndex]),
      [
        [false, true],
        [true, false],
      ],
    );
    for (const page of read.pages) {
      const presented = rest.find((r) => r.id === page.id);
      assert.deepEqual([page.noIndex, page.noRobotsIndex], [presented.noIndex, presented.noRobotsIndex], page.title);
    }
    for (const page of read.pages.filter((p) => p.kind === 'document')) {
      assert.equal(page.body, rest.find((r) => r.id === page.id).markdown, page.title);
      assert.equal(page.bodyHash, sha256(page.body));
    }
    const computed = read.pages.filter((page) => page.kind === 'computed');
    assert.ok(computed.length >= 2, 'the api-reference template made computed pages');
    for (const page of computed) assert.equal(page.body, '');
  });

  it('GetSpaceContent with known_revision_id: only the bodies that changed or evaluate; every body for a revision not of the space', async () => {
    const spaceId = await newSpace('Known');
    await commit(spaceId, [
      { type: 'insert_page', title: 'Same', markdown: 'Unchanged.' },
      { type: 'insert_page', title: 'Edited', markdown: 'Before.' },
      { type: 'insert_page', title: 'Titled', markdown: 'In {{ page.title }}.' },
    ]);
    const first = await currentRevision(spaceId);
    const before = await grpc.getSpaceContent({ spaceId, revisionId: '', evaluated: true });
    await commit(spaceId, [{ type: 'update_page', page: byTitle(before, 'Edited').id, markdown: 'After.' }]);
    const bodies = (read: content.GetSpaceContentResponse) => read.pages.map((page) => [page.title, page.bodyKept, page.body]);
    // The page whose body changed, and the one with an expression (its answer may change with its title or path), come with theirs.
    assert.deepEqual(bodies(await grpc.getSpaceContent({ spaceId, revisionId: '', evaluated: true, knownRevisionId: first })), [
      ['Same', true, ''],
      ['Edited', false, 'After.'],
      ['Titled', false, 'In Titled.'],
    ]);
    // Each page says when it last changed (the REST page's updatedAt): only the edited one moved.
    const after = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const times = (read: content.GetSpaceContentResponse) => read.pages.map((page) => page.updateTime?.getTime());
    assert.ok(times(before).every((time) => typeof time === 'number'));
    assert.deepEqual([times(after)[0], times(after)[2]], [times(before)[0], times(before)[2]]);
    assert.ok(times(after)[1]! > times(before)[1]!, 'the edited page');
    const second = await currentRevision(spaceId);
    // With when the space was last written, as BatchGetSpaces says it: what the caller keeps its content under.
    const [state] = (await grpc.batchGetSpaces({ ids: [spaceId], lean: true })).spaces;
    assert.ok(state.updateTime);
    assert.deepEqual((await grpc.getSpaceContent({ spaceId, revisionId: '' })).updateTime, state.updateTime);
    assert.deepEqual(bodies(await grpc.getSpaceContent({ spaceId, revisionId: '', evaluated: true, knownRevisionId: second })), [
      ['Same', true, ''],
      ['Edited', true, ''],
      ['Titled', false, 'In Titled.'],
    ]);
    // Unevaluated, the stored bodies are the same whatever the title: kept too.
    assert.deepEqual(bodies(await grpc.getSpaceContent({ spaceId, revisionId: '', knownRevisionId: first })), [
      ['Same', true, ''],
      ['Edited', false, 'After.'],
      ['Titled', true, ''],
    ]);
    for (const knownRevisionId of [source.revision, 'no-such-revision']) {
      assert.deepEqual(
        bodies(await grpc.getSpaceContent({ spaceId, revisionId: '', evaluated: true, knownRevisionId })),
        [
          ['Same', false, 'Unchanged.'],
          ['Edited', false, 'After.'],
          ['Titled', false, 'In Titled.'],
        ],
        knownRevisionId,
      );
    }
  });

  it("GetSpaceContent: a page's cover, a file of the revision or an address, as its change request set it", async () => {
    const spaceId = await newSpace('Covers');
    await commit(spaceId, [
      { type: 'insert_files', files: [{ ref: 'img', name: 'cover.png', contentType: 'image/png', data: 'AA==' }] },
      { type: 'insert_page', ref: 'a', title: 'Filed' },
      { type: 'update_page', page: 'a', cover: { ref: { kind: 'file', file: 'img' }, yPos: 12 } },
      { type: 'insert_page', ref: 'b', title: 'Linked' },
      { type: 'update_page', page: 'b', cover: { ref: { kind: 'url', url: 'https://images.example.com/b.png' }, refDark: { kind: 'file', file: 'img' } } },
      { type: 'insert_page', title: 'Bare' },
    ]);
    const read = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const file = read.files.find((candidate) => candidate.name === 'cover.png')?.id;
    assert.ok(file);
    assert.deepEqual(
      read.pages.map((page) => [page.title, page.cover, page.layout?.cover]),
      [
        ['Filed', { fileId: file, url: '', yPos: 12, darkFileId: '', darkUrl: '' }, true],
        ['Linked', { fileId: '', url: 'https://images.example.com/b.png', yPos: 0, darkFileId: file, darkUrl: '' }, true],
        ['Bare', undefined, false],
      ],
    );
  });

  it('GetSpaceContent: an older revision of the space; NOT_FOUND for unknown, deleted and purged spaces and foreign revisions', async () => {
    const older = await grpc.getSpaceContent({ spaceId: source.id, revisionId: source.firstRevision });
    assert.equal(older.revisionId, source.firstRevision);
    assert.deepEqual(
      older.pages.map((page) => page.title),
      ['Introduction', 'Guide', 'Install', 'Deep', 'Configure'],
    );
    assert.equal(byTitle(older, 'Install').body, 'Run the installer.');

    const other = await newSpace('Other');
    await rejectsWith(grpc.getSpaceContent({ spaceId: other, revisionId: source.revision }), grpcStatus.NOT_FOUND);
    await rejectsWith(grpc.getSpaceContent({ spaceId: source.id, revisionId: 'no-such-revision' }), grpcStatus.NOT_FOUND);
    await rejectsWith(grpc.getSpaceContent({ spaceId: 'no-such-space', revisionId: '' }), grpcStatus.NOT_FOUND);

    await ok('DELETE', `/v1/spaces/${other}`, undefined, 204);
    await rejectsWith(grpc.getSpaceContent({ spaceId: other, revisionId: '' }), grpcStatus.NOT_FOUND);
    const events = createEventBus({ redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX, logger: createLogger('test', 'silent') });
    const ctx = {
      models: service.context.models,
      caches: service.context.caches,
      redis: service.deps.redis,
      config,
      logger: service.deps.logger,
      events,
    } as unknown as ContentContext;
    try {
      await service.context.models.Space.updateOne({ _id: other }, { $set: { deletedAt: new Date(Date.now() - 8 * 24 * 3600 * 1000) } });
      assert.equal(await purgeSpace(ctx, other), true);
    } finally {
      await events.close();
    }
    await rejectsWith(grpc.getSpaceContent({ spaceId: other, revisionId: '' }), grpcStatus.NOT_FOUND);
  });

  it('BatchGetSpaces lean: where each space is (its revision) without the viewer parts, current right after a change; deleted ones only when asked', async () => {
    const spaceId = await newSpace('Lean');
    const before = (await grpc.batchGetSpaces({ ids: [spaceId, 'no-such-space'], lean: true })).spaces;
    assert.deepEqual(
      before.map((space) => [space.id, space.organizationId, space.title, space.revisionId, space.restJson, space.viewerRole]),
      [[spaceId, ORG, 'Lean', await currentRevision(spaceId), '', '']],
    );
    // Read again at once after a change: never the cached revision.
    await commit(spaceId, [{ type: 'insert_page', title: 'Now' }]);
    const after = (await grpc.batchGetSpaces({ ids: [spaceId], lean: true })).spaces[0];
    assert.equal(after.revisionId, await currentRevision(spaceId));
    assert.notEqual(after.revisionId, before[0].revisionId);
    await ok('DELETE', `/v1/spaces/${spaceId}`, undefined, 204);
    assert.deepEqual((await grpc.batchGetSpaces({ ids: [spaceId], lean: true })).spaces, []);
    const deleted = (await grpc.batchGetSpaces({ ids: [spaceId], lean: true, includeDeleted: true })).spaces[0];
    assert.ok(deleted.deleteTime instanceof Date);
  });

  it('CreateSpace: a private space at the root, once per idempotency key; its content is empty', async () => {
    const request = createRequest({ title: 'Handbook (FR)', emoji: '1f1eb-1f1f7', language: 'fr' });
    const first = await grpc.createSpace(request);
    assert.equal(first.created, true);
    const space = first.space!;
    assert.deepEqual(
      { organizationId: space.organizationId, title: space.title, emoji: space.emoji, visibility: space.visibility, parentId: space.parentId },
      { organizationId: ORG, title: 'Handbook (FR)', emoji: '1f1eb-1f1f7', visibility: 'private', parentId: '' },
    );
    assert.match(space.id, /^[0-9A-Za-z]{20}$/);
    // The same Space message BatchGetSpaces answers.
    assert.deepEqual((await grpc.batchGetSpaces({ ids: [space.id] })).spaces[0], space);
    assert.equal(JSON.parse(space.restJson).language, 'fr');

    const again = await grpc.createSpace(request);
    assert.equal(again.created, false);
    assert.equal(again.space!.id, space.id);
    assert.equal(again.space!.revisionId, space.revisionId);

    const read = await grpc.getSpaceContent({ spaceId: space.id, revisionId: '' });
    assert.deepEqual([read.revisionId, read.language, read.pages], [space.revisionId, 'fr', []]);
    const rest = await ok('GET', `/v1/spaces/${space.id}`);
    assert.deepEqual([rest.title, rest.visibility, rest.language], ['Handbook (FR)', 'private', 'fr']);

    // The key is the organization's: the same key elsewhere makes another space.
    const elsewhere = await grpc.createSpace({ ...request, organizationId: OTHER_ORG });
    assert.equal(elsewhere.created, true);
    assert.notEqual(elsewhere.space!.id, space.id);
    assert.equal(elsewhere.space!.organizationId, OTHER_ORG);
  });

  it('CreateSpace: in a collection with a copy of a revision (pages, bodies, files and variables)', async () => {
    const { space, created } = await grpc.createSpace(createRequest({ parentId: collectionId, copyRevisionId: source.revision, language: 'de' }));
    assert.equal(created, true);
    assert.equal(space!.parentId, collectionId);
    const [copy, original] = await Promise.all([
      grpc.getSpaceContent({ spaceId: space!.id, revisionId: '' }),
      grpc.getSpaceContent({ spaceId: source.id, revisionId: '' }),
    ]);
    assert.notEqual(copy.revisionId, original.revisionId);
    assert.deepEqual(copy.pages, original.pages);
    const rest = await ok('GET', `/v1/spaces/${space!.id}/content`);
    assert.deepEqual(
      rest.files.map((file: { name: string }) => file.name),
      ['pets.json'],
    );
    assert.deepEqual(rest.variables, { product: 'Quire' });
    assert.equal((await ok('GET', `/v1/collections/${collectionId}/spaces`)).items.filter((s: { id: string }) => s.id === space!.id).length, 1);
  });

  it('CreateSpace: five concurrent calls with the same key make one space, and all five answer it', async () => {
    const request = createRequest({ title: 'Raced', copyRevisionId: source.revision });
    const answers = await Promise.all(Array.from({ length: 5 }, () => grpc.createSpace(request)));
    const ids = new Set(answers.map((answer) => answer.space!.id));
    assert.equal(ids.size, 1);
    assert.equal(answers.filter((answer) => answer.created).length, 1);
    const [id] = ids;
    const models = service.context.models;
    assert.equal(await models.Space.countDocuments({ organizationId: ORG, title: 'Raced' }), 1);
    // The losers' copies of the revision were discarded.
    assert.equal(await models.Revision.countDocuments({ spaceId: id }), 1);
    assert.equal(
      (await grpc.getSpaceContent({ spaceId: id, revisionId: '' })).pages.length,
      (await grpc.getSpaceContent({ spaceId: source.id, revisionId: '' })).pages.length,
    );
  });

  it('CreateSpace: INVALID_ARGUMENT for missing fields, an unknown language, a foreign collection or revision', async () => {
    const invalid = (fields: Partial<content.CreateSpaceRequest>, message: RegExp) =>
      rejectsWith(grpc.createSpace(createRequest(fields)), grpcStatus.INVALID_ARGUMENT, message);
    await invalid({ idempotencyKey: '' }, /idempotencyKey/);
    await invalid({ organizationId: '' }, /organizationId/);
    await invalid({ createdBy: '' }, /createdBy/);
    await invalid({ language: 'klingon' }, /language/);
    await invalid({ title: 'x'.repeat(51) }, /title/);
    await invalid({ parentId: 'no-such-collection' }, /parent_id/);
    const foreignCollection = (await ok('POST', `/v1/orgs/${OTHER_ORG}/collections`, { title: 'Theirs' }, 201)).id;
    await invalid({ parentId: foreignCollection }, /parent_id/);
    await invalid({ copyRevisionId: 'no-such-revision' }, /copy_revision_id/);
    await invalid({ organizationId: OTHER_ORG, copyRevisionId: source.revision }, /copy_revision_id/);
  });

  it('WriteSpacePages: pages with content are rewritten, pages without keep theirs, unlisted ones go (REST shows the new revision)', async () => {
    const { space } = await grpc.createSpace(createRequest({ title: 'Handbook (ES)', language: 'es', copyRevisionId: source.revision }));
    const spaceId = space!.id;
    const before = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const [intro, guide, install, deep, configure] = ['Introduction', 'Guide', 'Install', 'Deep', 'Configure'].map((title) => byTitle(before, title));
    const [models, ...tags] = [byTitle(before, 'Models'), ...before.pages.filter((page) => page.kind === 'computed' && page.title !== 'Models')];
    assert.equal(models.kind, 'computed');
    const rest = before.pages.filter((page) => ![intro, guide, install, deep, configure, models].includes(page));

    // Guide first now; Install translated with a given slug and moved to the root;
    // Introduction translated (slug made from its new title); a new root page whose title's
    // slug is a kept sibling's; Configure removed; the API reference kept as it is but its
    // Models page, renamed (a body written for a computed page is ignored).
    const pages: content.PageWrite[] = [
      keepAll([guide])[0],
      withContent(install, { parentId: '', title: 'Instalar', body: 'Ejecute el instalador.', slug: 'instalar', description: 'Cómo instalar' }),
      keepAll([deep])[0],
      withContent(intro, { title: 'Introducción', body: '# Bienvenido\n\nHola.', slug: '', emoji: '', hidden: true }),
      { id: 'new-page-1', parentId: '', hasContent: true, title: 'Guide', body: 'Nueva.', description: '', slug: '', emoji: '', hidden: false },
      ...rest.map((page) => keepAll([page])[0]),
      withContent(models, { title: 'Modelos', body: 'ignored' }),
    ];
    const written = await grpc.writeSpacePages({ spaceId, expectedRevisionId: before.revisionId, pages, userId: ada });
    assert.equal(written.changed, true);
    assert.notEqual(written.revisionId, before.revisionId);

    const after = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    assert.equal(after.revisionId, written.revisionId);
    assert.deepEqual(
      after.pages.map((page) => [page.id, page.parentId]),
      [
        [guide.id, ''],
        [install.id, ''],
        [deep.id, install.id],
        [intro.id, ''],
        ['new-page-1', ''],
        ...rest.map((page) => [page.id, page.parentId]),
        [models.id, models.parentId],
      ],
    );
    const get = (id: string) => after.pages.find((page) => page.id === id)!;
    // Kept pages are exactly as they were (their parent aside).
    assert.deepEqual(get(guide.id), guide);
    assert.deepEqual(get(deep.id), deep);
    for (const page of rest) assert.deepEqual(get(page.id), page);
    assert.ok(tags.length > 0 && tags.every((tag) => rest.includes(tag)));
    // Rewritten pages are as written, and say they changed since (update_time).
    const rewritten = (page: content.ContentPage, expected: content.ContentPage) => {
      const now = get(page.id);
      assert.ok(now.updateTime! > page.updateTime!, `${page.title} changed later`);
      assert.deepEqual({ ...now, updateTime: undefined }, { ...expected, updateTime: undefined });
    };
    rewritten(models, { ...models, title: 'Modelos' });
    rewritten(install, {
      ...install,
      parentId: '',
      title: 'Instalar',
      body: 'Ejecute el instalador.',
      bodyHash: sha256('Ejecute el instalador.'),
      slug: 'instalar',
      description: 'Cómo instalar',
    });
    rewritten(intro, {
      ...intro,
      title: 'Introducción',
      body: '# Bienvenido\n\nHola.',
      bodyHash: sha256('# Bienvenido\n\nHola.'),
      slug: 'introduccion',
      emoji: '',
      hidden: true,
    });
    // Unique among its siblings: the kept Guide keeps "guide".
    assert.deepEqual([get('new-page-1').slug, get('new-page-1').body, get('new-page-1').kind], ['guide-2', 'Nueva.', 'document']);
    assert.equal(
      after.pages.find((page) => page.id === configure.id),
      undefined,
    );

    // The REST view of the space is the new revision, its parent the old one; files and variables stayed.
    const content = await ok('GET', `/v1/spaces/${spaceId}/content`);
    assert.equal(content.id, written.revisionId);
    assert.deepEqual(content.parents, [before.revisionId]);
    assert.deepEqual(
      content.files.map((file: { name: string }) => file.name),
      ['pets.json'],
    );
    assert.deepEqual(content.variables, { product: 'Quire' });
    const restPages = flat(content.pages);
    assert.deepEqual(
      restPages.map((page) => page.id),
      after.pages.map((page) => page.id),
    );
    assert.equal(restPages.find((page) => page.id === intro.id).markdown, '# Bienvenido\n\nHola.');
    assert.deepEqual(restPages.find((page) => page.id === guide.id).variables, { level: '1' });
    assert.equal(restPages.find((page) => page.id === intro.id).path, 'introduccion');
    assert.equal(restPages.find((page) => page.id === 'new-page-1').path, 'guide-2');
    assert.equal(restPages.find((page) => page.id === deep.id).path, 'instalar/deep');
  });

  it('WriteSpacePages: the same tree again writes nothing (changed false), with or without content', async () => {
    const { space } = await grpc.createSpace(createRequest({ copyRevisionId: source.revision }));
    const spaceId = space!.id;
    const read = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const revisions = await service.context.models.Revision.countDocuments({ spaceId });
    assert.ok(read.pages.some((page) => page.noIndex) && read.pages.some((page) => page.noRobotsIndex));
    for (const pages of [
      keepAll(read.pages),
      read.pages.map((page) => withContent(page)),
      read.pages.map((page, i) => (i % 2 ? withContent(page) : keepAll([page])[0])),
      // The indexing flags given as the pages have them.
      read.pages.map((page) => withContent(page, { noIndex: page.noIndex, noRobotsIndex: page.noRobotsIndex })),
    ]) {
      const answer = await grpc.writeSpacePages({ spaceId, expectedRevisionId: read.revisionId, pages, userId: ada });
      assert.deepEqual(answer, { revisionId: read.revisionId, changed: false });
    }
    assert.equal(await service.context.models.Revision.countDocuments({ spaceId }), revisions);
    assert.equal(await currentRevision(spaceId), read.revisionId);
  });

  it('WriteSpacePages: the indexing flags are kept unless given (with or without content), set when given, false on a new page', async () => {
    const { space } = await grpc.createSpace(createRequest({ copyRevisionId: source.revision }));
    const spaceId = space!.id;
    const before = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const [intro, install, deep] = ['Introduction', 'Install', 'Deep'].map((title) => byTitle(before, title));
    assert.deepEqual(
      [intro, install, deep].map((page) => [page.noIndex, page.noRobotsIndex]),
      [
        [false, false],
        [false, true],
        [true, false],
      ],
      'copied with the revision',
    );
    const pages = before.pages.map((page): content.PageWrite => {
      // Translated without flags: kept. Given: set (and cleared).
      if (page.id === install.id) return withContent(page, { title: 'Instalar', body: 'Ejecute el instalador.' });
      if (page.id === intro.id) return withContent(page, { title: 'Introducción', noIndex: true, noRobotsIndex: true });
      if (page.id === deep.id) return withContent(page, { title: 'Profundo', noIndex: false });
      return keepAll([page])[0];
    });
    pages.push(
      { id: 'new-flagged', parentId: '', hasContent: true, title: 'Nueva', body: 'Nueva.', description: '', slug: '', emoji: '', hidden: false, noIndex: true },
      { id: 'new-plain', parentId: '', hasContent: true, title: 'Otra', body: 'Otra.', description: '', slug: '', emoji: '', hidden: false },
    );
    const written = await grpc.writeSpacePages({ spaceId, expectedRevisionId: before.revisionId, pages, userId: ada });
    assert.equal(written.changed, true);
    const after = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const flags = (id: string) => {
      const page = after.pages.find((candidate) => candidate.id === id)!;
      return [page.title, page.noIndex, page.noRobotsIndex];
    };
    assert.deepEqual([intro.id, install.id, deep.id, 'new-flagged', 'new-plain'].map(flags), [
      ['Introducción', true, true],
      ['Instalar', false, true],
      ['Profundo', false, false],
      ['Nueva', true, false],
      ['Otra', false, false],
    ]);
    // REST answers the same flags.
    const rest = flat((await ok('GET', `/v1/spaces/${spaceId}/content?computed=false`)).pages);
    for (const page of after.pages) {
      const presented = rest.find((candidate) => candidate.id === page.id);
      assert.deepEqual([presented.noIndex, presented.noRobotsIndex], [page.noIndex, page.noRobotsIndex], page.title);
    }
    // Only the flags changing is a change; the same flags again is none.
    const flagOnly = after.pages.map((page) => (page.id === install.id ? withContent(page, { noRobotsIndex: false }) : keepAll([page])[0]));
    const cleared = await grpc.writeSpacePages({ spaceId, expectedRevisionId: after.revisionId, pages: flagOnly, userId: ada });
    assert.equal(cleared.changed, true);
    const last = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    assert.equal(byTitle(last, 'Instalar').noRobotsIndex, false);
    const again = await grpc.writeSpacePages({ spaceId, expectedRevisionId: last.revisionId, pages: flagOnly, userId: ada });
    assert.deepEqual(again, { revisionId: last.revisionId, changed: false });
  });

  it('WriteSpacePages: the layout is kept unless given, set when given, the defaults on a new page; GetSpaceContent and copies carry it', async () => {
    const { space } = await grpc.createSpace(createRequest({ copyRevisionId: source.revision }));
    const spaceId = space!.id;
    const before = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const defaults = byTitle(before, 'Introduction').layout!;
    assert.deepEqual(defaults, {
      width: 'default',
      cover: false,
      coverSize: 'hero',
      coverMask: 'none',
      title: true,
      description: true,
      tableOfContents: true,
      outline: true,
      pagination: true,
      metadata: true,
      tags: true,
      actions: true,
      anchors: true,
    });
    const [intro, install] = ['Introduction', 'Install'].map((title) => byTitle(before, title));
    const landing = { ...defaults, width: 'wide', tableOfContents: false, outline: false };
    const pages = before.pages.map((page) =>
      page.id === install.id
        ? withContent(page, { title: 'Instalar', layout: landing })
        : page.id === intro.id
          ? withContent(page, { title: 'Introducción' })
          : keepAll([page])[0],
    );
    pages.push({ id: 'new-page', parentId: '', hasContent: true, title: 'Nueva', body: 'Nueva.', description: '', slug: '', emoji: '', hidden: false });
    const written = await grpc.writeSpacePages({ spaceId, expectedRevisionId: before.revisionId, pages, userId: ada });
    assert.equal(written.changed, true);
    const after = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    assert.deepEqual(byTitle(after, 'Instalar').layout, landing);
    assert.deepEqual(byTitle(after, 'Introducción').layout, defaults);
    assert.deepEqual(byTitle(after, 'Nueva').layout, defaults);
    const rest = flat((await ok('GET', `/v1/spaces/${spaceId}/content?computed=false`)).pages);
    for (const page of after.pages) assert.deepEqual(rest.find((candidate) => candidate.id === page.id).layout, page.layout, page.title);

    // Written again without a layout: kept; the same layout again is no change; a copy of the revision has it.
    const kept = after.pages.map((page) => (page.id === install.id ? withContent(page) : keepAll([page])[0]));
    assert.deepEqual(await grpc.writeSpacePages({ spaceId, expectedRevisionId: after.revisionId, pages: kept, userId: ada }), {
      revisionId: after.revisionId,
      changed: false,
    });
    const same = after.pages.map((page) => (page.id === install.id ? withContent(page, { layout: landing }) : keepAll([page])[0]));
    assert.equal((await grpc.writeSpacePages({ spaceId, expectedRevisionId: after.revisionId, pages: same, userId: ada })).changed, false);
    const { space: copy } = await grpc.createSpace(createRequest({ copyRevisionId: after.revisionId }));
    assert.deepEqual(byTitle(await grpc.getSpaceContent({ spaceId: copy!.id, revisionId: '' }), 'Instalar').layout, landing);

    const narrow = after.pages.map((page) => (page.id === install.id ? withContent(page, { layout: { ...landing, width: 'narrow' } }) : keepAll([page])[0]));
    await rejectsWith(
      grpc.writeSpacePages({ spaceId, expectedRevisionId: after.revisionId, pages: narrow, userId: ada }),
      grpcStatus.INVALID_ARGUMENT,
      /layout\.width/,
    );
  });

  it('WriteSpacePages: ABORTED at a stale revision, NOT_FOUND for unknown and deleted spaces, INVALID_ARGUMENT for a bad tree', async () => {
    const { space } = await grpc.createSpace(createRequest({ copyRevisionId: source.firstRevision }));
    const spaceId = space!.id;
    const read = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const [intro, guide, install] = read.pages;
    const write = (pages: content.PageWrite[], fields: Partial<content.WriteSpacePagesRequest> = {}) =>
      grpc.writeSpacePages({ spaceId, expectedRevisionId: read.revisionId, pages, userId: ada, ...fields });

    await rejectsWith(write(keepAll(read.pages), { expectedRevisionId: source.firstRevision }), grpcStatus.ABORTED);
    await rejectsWith(write(keepAll(read.pages), { spaceId: 'no-such-space' }), grpcStatus.NOT_FOUND);

    const invalid = (pages: content.PageWrite[], message: RegExp, fields: Partial<content.WriteSpacePagesRequest> = {}) =>
      rejectsWith(write(pages, fields), grpcStatus.INVALID_ARGUMENT, message);
    const unknown = { ...keepAll([intro])[0], id: 'not-in-the-space' };
    await invalid([unknown], /pages\.0\.has_content/);
    await invalid([keepAll([install])[0], keepAll([guide])[0]], /pages\.0\.parent_id/);
    await invalid([{ ...keepAll([intro])[0], parentId: 'nowhere' }], /pages\.0\.parent_id/);
    await invalid([keepAll([intro])[0], keepAll([intro])[0]], /pages\.1\.id/);
    await invalid([{ ...keepAll([intro])[0], id: '' }], /pages\.0\.id/);
    await invalid([withContent(intro, { slug: 'no spaces/here' })], /pages\.0\.slug/);
    await invalid([withContent(intro, { title: '  ' })], /pages\.0\.title/);
    await invalid(keepAll(read.pages), /userId/, { userId: '' });
    await invalid(keepAll(read.pages), /expectedRevisionId/, { expectedRevisionId: '' });
    assert.equal(await currentRevision(spaceId), read.revisionId, 'nothing was written');

    // An empty tree is a valid write: every page goes.
    const emptied = await write([]);
    assert.equal(emptied.changed, true);
    assert.deepEqual((await grpc.getSpaceContent({ spaceId, revisionId: '' })).pages, []);

    await ok('DELETE', `/v1/spaces/${spaceId}`, undefined, 204);
    await rejectsWith(write([], { expectedRevisionId: emptied.revisionId }), grpcStatus.NOT_FOUND);
  });

  it('WriteSpacePages: concurrent writes at the same revision: exactly one wins, the others are ABORTED and leave nothing behind', async () => {
    const { space } = await grpc.createSpace(createRequest({ copyRevisionId: source.revision }));
    const spaceId = space!.id;
    const read = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const revisions = await service.context.models.Revision.countDocuments({ spaceId });
    const intro = byTitle(read, 'Introduction');
    const writers = ['Einleitung', 'Introduzione', 'Inleiding', 'Introdução'];
    const results = await Promise.allSettled(
      writers.map((title) =>
        grpc.writeSpacePages({
          spaceId,
          expectedRevisionId: read.revisionId,
          userId: ada,
          pages: read.pages.map((page) => (page.id === intro.id ? withContent(page, { title, slug: '', body: `${title}.` }) : keepAll([page])[0])),
        }),
      ),
    );
    const won = results.flatMap((result, index) => (result.status === 'fulfilled' ? [{ title: writers[index], answer: result.value }] : []));
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as ClientError).details))));
    for (const result of results) {
      if (result.status === 'rejected') assert.equal((result.reason as ClientError).code, grpcStatus.ABORTED, (result.reason as ClientError).details);
    }
    assert.equal(won[0].answer.changed, true);
    const after = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    assert.equal(after.revisionId, won[0].answer.revisionId);
    assert.equal(byTitle(after, won[0].title).body, `${won[0].title}.`);
    assert.equal(after.pages.length, read.pages.length);
    assert.equal(await currentRevision(spaceId), won[0].answer.revisionId);
    assert.equal(await service.context.models.Revision.countDocuments({ spaceId }), revisions + 1, "the losers' revisions were discarded");
  });

  it('GetSpaceContent: the revision files with their name, type and size (no bytes), as the REST API lists them', async () => {
    // A 1×1 transparent PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    const spaceId = await newSpace('With files');
    const empty = await currentRevision(spaceId);
    await commit(spaceId, [
      { type: 'insert_files', files: [{ name: 'logo.png', contentType: 'image/png', data: png.toString('base64') }] },
      { type: 'insert_page', title: 'Home', markdown: 'The logo: ![logo](logo.png)' },
    ]);
    const read = await grpc.getSpaceContent({ spaceId, revisionId: '' });
    const rest = await ok('GET', `/v1/spaces/${spaceId}/content`);
    assert.equal(read.revisionId, rest.id);
    assert.equal(read.files.length, 1);
    assert.deepEqual(
      { name: read.files[0].name, contentType: read.files[0].contentType, size: read.files[0].size },
      { name: 'logo.png', contentType: 'image/png', size: png.length },
    );
    assert.deepEqual(
      read.files,
      rest.files.map((file: any) => ({ id: file.id, name: file.name, contentType: file.contentType, size: file.size })),
    );
    // A given revision answers its own files: none in the first, the spec in the source space.
    assert.deepEqual((await grpc.getSpaceContent({ spaceId, revisionId: empty })).files, []);
    assert.deepEqual(
      (await grpc.getSpaceContent({ spaceId: source.id, revisionId: source.firstRevision })).files.map((file) => [file.name, file.contentType]),
      [['pets.json', 'application/json']],
    );
  });

  it('GetSpaceContent: evaluated bodies have their expressions evaluated as REST page reads evaluate them; verbatim otherwise', async () => {
    const spaceId = await newSpace('Expressions');
    const markdown = [
      'Product: {{ space.vars.product }} {{ space.vars.version }}',
      'Audience: {{ page.vars.audience }}',
      'Where: {{ page.title }} at {{ page.path }} in {{ space.title }}',
      'Broken: {{ this is not one }}',
      'Code: `{{ space.vars.product }}`',
    ].join('\n');
    const childMarkdown = 'Child of {{ page.path }} for {{ page.vars.audience }}';
    await commit(spaceId, [
      { type: 'update_variables', variables: { product: 'Quire', version: '2' } },
      { type: 'insert_page', ref: 'guide', title: 'Guide', slug: 'guide', markdown, variables: { audience: 'developers' } },
      { type: 'insert_page', into: 'guide', title: 'Child', slug: 'child', markdown: childMarkdown },
    ]);
    const first = await currentRevision(spaceId);
    await commit(spaceId, [{ type: 'update_variables', variables: { product: 'Quire', version: '3' } }]);

    const verbatim = await grpc.getSpaceContent({ spaceId, revisionId: '', evaluated: false });
    assert.equal(byTitle(verbatim, 'Guide').body, markdown);
    assert.equal(byTitle(verbatim, 'Child').body, childMarkdown);
    assert.deepEqual((await grpc.getSpaceContent({ spaceId, revisionId: '' })).pages, verbatim.pages, 'evaluated is false by default');

    const evaluated = await grpc.getSpaceContent({ spaceId, revisionId: '', evaluated: true });
    const guide = byTitle(evaluated, 'Guide');
    assert.deepEqual(guide.body.split('\n'), [
      'Product: Quire 3',
      'Audience: developers',
      'Where: Guide at guide in Expressions',
      'Broken: {{ this is not one }}',
      'Code: `{{ space.vars.product }}`',
    ]);
    assert.equal(guide.bodyHash, sha256(markdown), 'the hash is the stored body’s');
    assert.equal(byTitle(evaluated, 'Child').body, 'Child of guide/child for ');
    // Everything else is as without evaluation, and each body is what REST answers with evaluated=true.
    assert.deepEqual(
      evaluated.pages.map(({ body: _body, ...page }) => page),
      verbatim.pages.map(({ body: _body, ...page }) => page),
    );
    for (const page of evaluated.pages) {
      assert.equal(page.body, (await ok('GET', `/v1/spaces/${spaceId}/content/page/${page.id}?evaluated=true`)).markdown, page.title);
    }
    // An older revision is evaluated with its own variables.
    const older = await grpc.getSpaceContent({ spaceId, revisionId: first, evaluated: true });
    assert.equal(byTitle(older, 'Guide').body.split('\n')[0], 'Product: Quire 2');
  });

  describe('SearchSpaceContent', () => {
    let spaceId: string;
    let firstRevision: string;
    const setupMarkdown = [
      'Some opening words.',
      '',
      '## Install the tools',
      '',
      'Run the zephyrine installer, then restart.',
      '',
      '## Configure',
      '',
      'Set the options.',
    ].join('\n');
    const search = (fields: Partial<content.SearchSpaceContentRequest>) => grpc.searchSpaceContent({ spaceId, revisionId: '', query: '', limit: 0, ...fields });

    beforeAll(async () => {
      spaceId = await newSpace('Searchable');
      await commit(spaceId, [
        { type: 'insert_page', ref: 'guide', title: 'Guide', markdown: 'A quokka guide.' },
        { type: 'insert_page', into: 'guide', title: 'Setup', markdown: setupMarkdown, description: 'Getting set up' },
        { type: 'insert_page', title: 'Animals', markdown: '# Quokka\n\nThe quokka smiles.' },
      ]);
      firstRevision = await currentRevision(spaceId);
      await commit(spaceId, [{ type: 'insert_page', title: 'More', markdown: 'Another quokka page.' }]);
    });

    it('finds a page by a word of its body, with the anchor of the heading it sits under, as REST search answers it', async () => {
      const found = await search({ query: 'zephyrine' });
      assert.equal(found.revisionId, await currentRevision(spaceId));
      assert.equal(found.total, 1);
      const [hit] = found.hits;
      const read = await grpc.getSpaceContent({ spaceId, revisionId: '' });
      const setup = byTitle(read, 'Setup');
      assert.deepEqual(
        { pageId: hit.pageId, title: hit.title, path: hit.path, description: hit.description },
        { pageId: setup.id, title: 'Setup', path: 'guide/setup', description: 'Getting set up' },
      );
      const section = markdownSections(setupMarkdown).find((candidate) => candidate.text.includes('zephyrine'));
      assert.ok(section?.anchor);
      assert.equal(hit.sections[0].anchor, section.anchor);
      assert.equal(hit.sections[0].anchor, 'install-the-tools');
      assert.equal(hit.sections[0].title, 'Install the tools');
      assert.match(hit.sections[0].body, /zephyrine installer/);

      // The same page, path, sections and excerpts as GET /v1/spaces/{id}/search.
      const rest = await ok('GET', `/v1/spaces/${spaceId}/search?query=zephyrine`);
      assert.equal(rest.count, found.total);
      assert.deepEqual(
        rest.items.map((item: any) => ({
          pageId: item.id,
          title: item.title,
          path: item.path,
          description: item.description,
          sections: item.sections.map((s: any) => ({ anchor: s.id === item.id ? '' : s.id, title: s.title, body: s.body })),
        })),
        found.hits,
      );

      // Text before the first heading: no anchor, the page's title.
      const opening = await search({ query: 'opening' });
      assert.deepEqual(opening.hits[0].sections[0], { anchor: '', title: 'Setup', body: opening.hits[0].sections[0].body });
      assert.match(opening.hits[0].sections[0].body, /opening words/);
    });

    it('respects limit (0: the default, at most 50) and searches the revision asked for', async () => {
      const all = await search({ query: 'quokka' });
      assert.equal(all.total, 3);
      assert.deepEqual(
        all.hits.map((hit) => hit.title),
        (await ok('GET', `/v1/spaces/${spaceId}/search?query=quokka`)).items.map((item: any) => item.title),
      );
      assert.ok(all.hits.some((hit) => hit.title === 'More'));
      const two = await search({ query: 'quokka', limit: 2 });
      assert.equal(two.total, 3);
      assert.deepEqual(two.hits, all.hits.slice(0, 2));
      assert.equal((await search({ query: 'quokka', limit: 50 })).hits.length, 3);

      const older = await search({ query: 'quokka', revisionId: firstRevision });
      assert.equal(older.revisionId, firstRevision);
      assert.equal(older.total, 2);
      assert.ok(!older.hits.some((hit) => hit.title === 'More'));
    });

    it('never answers a noIndex page; a page whose noIndex is turned off is found, and left out again once it is turned back on', async () => {
      await commit(spaceId, [{ type: 'insert_page', title: 'Quokka secrets', markdown: 'The quokka hideout.', noIndex: true }]);
      const read = await grpc.getSpaceContent({ spaceId, revisionId: '' });
      const secret = byTitle(read, 'Quokka secrets');
      assert.deepEqual([secret.noIndex, secret.noRobotsIndex], [true, false]);
      const titles = async (query: string) => (await search({ query })).hits.map((hit) => hit.title).sort();
      assert.deepEqual(await titles('quokka'), ['Animals', 'Guide', 'More']);
      assert.deepEqual(await titles('hideout'), []);
      assert.equal((await ok('GET', `/v1/spaces/${spaceId}/search?query=hideout`)).count, 0);

      await commit(spaceId, [{ type: 'update_page', page: secret.id, noIndex: false }]);
      assert.deepEqual(await titles('quokka'), ['Animals', 'Guide', 'More', 'Quokka secrets']);
      assert.deepEqual(await titles('hideout'), ['Quokka secrets']);

      await commit(spaceId, [{ type: 'update_page', page: secret.id, noIndex: true }]);
      assert.deepEqual(await titles('quokka'), ['Animals', 'Guide', 'More']);
      assert.deepEqual(await titles('hideout'), []);
    });

    it('NOT_FOUND for unknown and deleted spaces and foreign revisions; INVALID_ARGUMENT for an empty or too long query or a bad limit', async () => {
      await rejectsWith(search({ spaceId: 'no-such-space', query: 'quokka' }), grpcStatus.NOT_FOUND);
      await rejectsWith(search({ query: 'quokka', revisionId: 'no-such-revision' }), grpcStatus.NOT_FOUND);
      await rejectsWith(search({ query: 'quokka', revisionId: source.revision }), grpcStatus.NOT_FOUND);
      const gone = await newSpace('Gone');
      await ok('DELETE', `/v1/spaces/${gone}`, undefined, 204);
      await rejectsWith(search({ spaceId: gone, query: 'quokka' }), grpcStatus.NOT_FOUND);

      await rejectsWith(search({ query: '' }), grpcStatus.INVALID_ARGUMENT, /query/);
      await rejectsWith(search({ query: '   ' }), grpcStatus.INVALID_ARGUMENT, /query/);
      await rejectsWith(search({ query: 'q'.repeat(513) }), grpcStatus.INVALID_ARGUMENT, /query/);
      await rejectsWith(search({ query: 'quokka', limit: 51 }), grpcStatus.INVALID_ARGUMENT, /limit/);
      await rejectsWith(search({ query: 'quokka', limit: -1 }), grpcStatus.INVALID_ARGUMENT, /limit/);
      await rejectsWith(search({ spaceId: '', query: 'quokka' }), grpcStatus.INVALID_ARGUMENT, /spaceId/);
    });
  });
});
