import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { assertMatchesOpenApi, sharedTestStack, type TestAccount, type TestStack, expectError as assertError, expectOk as ok } from '@quire/testkit';
import { assertPageShape, assertRevisionShape } from './page-shapes';

const PETSTORE_YAML = `
openapi: 3.0.3
info:
  title: Petstore
  version: 1.2.0
  description: Sells pets.
servers:
  - url: https://petstore.example.com/v1
tags:
  - name: pets
    description: Everything about pets.
  - name: store
paths:
  /pets:
    parameters:
      - name: X-Trace
        in: header
        schema: { type: string }
    get:
      tags: [pets]
      operationId: listPets
      summary: List pets
      description: Every pet, oldest first.
      parameters:
        - name: limit
          in: query
          description: How many | at most
          schema: { type: integer, format: int32 }
      responses:
        '200':
          description: A page of pets
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Pet' } }
        default:
          $ref: '#/components/responses/Error'
    post:
      tags: [pets]
      summary: Add a pet
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/NewPet' }
      responses:
        '201': { description: Created }
  /pets/{petId}:
    get:
      tags: [pets]
      summary: One pet
      deprecated: true
      parameters:
        - $ref: '#/components/parameters/PetId'
      responses:
        '200':
          description: The pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
  /orders:
    post:
      tags: [store]
      summary: Place an order
      responses:
        '200': { description: Placed }
  /health:
    get:
      summary: Health check
      responses:
        '200': { description: Fine }
components:
  parameters:
    PetId:
      name: petId
      in: path
      required: true
      schema: { type: string }
  responses:
    Error:
      description: An error
      content:
        application/json:
          schema: { $ref: '#/components/schemas/Error' }
  schemas:
    NewPet:
      type: object
      required: [name]
      properties:
        name: { type: string, description: The pet's name }
        tag: { type: string }
    Pet:
      allOf:
        - $ref: '#/components/schemas/NewPet'
        - type: object
          required: [id]
          properties:
            id: { type: integer, format: int64 }
    Error:
      type: object
      properties:
        message: { type: string }
    Status:
      type: string
      enum: [available, sold]
`;

const INVENTORY_JSON = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Inventory', version: '2' },
  paths: { '/items': { get: { tags: ['items'], summary: 'List items', responses: { '200': { description: 'Items' } } } } },
});

/** POST /v1/spaces/{spaceId}/content/template and change requests created from a template. */
describe('content: templates (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let editor: TestAccount;
  let commenter: TestAccount;
  let reader: TestAccount;
  let outsider: TestAccount;

  const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages)]);
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const newSpace = async (title: string) => ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201);
  const newChangeRequest = async (spaceId: string, body: unknown = { subject: 'edit' }) =>
    ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests`, body), 201);
  const write = async (spaceId: string, cr: string, changes: unknown[]) =>
    ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content?compat=false`, { changes }));
  const content = async (spaceId: string, query = '') => ok(await reader.api.get(`/v1/spaces/${spaceId}/content${query}`));
  const crContent = async (spaceId: string, cr: string, query = '') => ok(await reader.api.get(`/v1/spaces/${spaceId}/change-requests/${cr}/content${query}`));
  const apply = (spaceId: string, body: unknown, api = editor.api) => api.post(`/v1/spaces/${spaceId}/content/template`, body);
  /** A space whose content holds the given files (and one page), through a merged change request. */
  const spaceWithFiles = async (title: string, files: Array<{ name: string; contentType: string; text: string }>) => {
    const space = await newSpace(title);
    const cr = await newChangeRequest(space.id);
    const insertFiles =
      files.length > 0
        ? [{ type: 'insert_files', files: files.map((file) => ({ name: file.name, contentType: file.contentType, data: base64(file.text) })) }]
        : [];
    const written = await write(space.id, cr.id, [{ type: 'insert_page', title: 'Existing', slug: 'existing', markdown: 'Already here' }, ...insertFiles]);
    ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));
    return { space, fileIds: written.insertedFiles.map((file: any) => file.id) as string[] };
  };
  const assertPages = (pages: any[]) => {
    for (const page of flat(pages)) assertPageShape(page);
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    const organization = await stack.organization({ domain: 'templates.test', roles: ['edit', 'comment', 'read'] });
    ({ admin, outsider } = organization);
    orgId = organization.id;
    ({ edit: editor, comment: commenter, read: reader } = organization.members);
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
  });

  it('applies getting-started to the primary content, appended at the end of the root with unique slugs', async () => {
    const { space } = await spaceWithFiles('Starter', []);
    const before = await content(space.id);
    const applied = await apply(space.id, { id: 'getting-started' });
    assert.equal(applied.status, 201);
    assert.equal(applied.body, '');
    const after = await content(space.id);
    assertRevisionShape(after);
    assert.deepEqual(after.parents, [before.id]);
    assert.deepEqual(
      after.pages.map((page: any) => page.title),
      ['Existing', 'Welcome', 'Quickstart', 'Guides', 'FAQ'],
    );
    const guides = after.pages[3];
    assert.deepEqual(
      guides.pages.map((page: any) => page.title),
      ['Writing pages', 'Publishing your docs'],
    );
    assert.equal(guides.pages[0].path, 'guides/writing-pages');
    assertPages(after.pages);
    for (const page of flat(after.pages).slice(1)) assert.ok(page.markdown.length > 100, page.title);

    // Applied again: the same pages once more, with slugs made unique among their siblings.
    ok(await apply(space.id, { id: 'getting-started', params: {} }), 201);
    const twice = await content(space.id);
    assert.equal(twice.pages.length, 9);
    assert.deepEqual(
      twice.pages.slice(5).map((page: any) => page.slug),
      ['welcome-2', 'quickstart-2', 'guides-2', 'faq-2'],
    );
    assert.equal(twice.pages[7].pages[0].path, 'guides-2/writing-pages');
  });

  it('applies a template to a change request (by id or number), leaving the primary content alone', async () => {
    const { space } = await spaceWithFiles('Starter CR', []);
    const main = await content(space.id);
    const cr = await newChangeRequest(space.id);
    ok(await apply(space.id, { id: 'getting-started', changeRequestId: cr.id }), 201);
    const revision = await crContent(space.id, cr.id);
    assert.deepEqual(
      revision.pages.map((page: any) => page.title),
      ['Existing', 'Welcome', 'Quickstart', 'Guides', 'FAQ'],
    );
    assertPages(revision.pages);
    assert.equal((await content(space.id)).id, main.id);
    ok(await apply(space.id, { id: 'getting-started', changeRequestId: String(cr.number) }), 201);
    assert.equal((await crContent(space.id, cr.id)).pages.length, 9);
    const fetched = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`));
    assertMatchesOpenApi('ChangeRequest', fetched);
    assert.notEqual(fetched.revision, fetched.revisionInitial);
  });

  it('builds an API reference from an OpenAPI file of the content, generated when read', async () => {
    const { space, fileIds } = await spaceWithFiles('API', [
      { name: 'petstore.yaml', contentType: 'application/yaml', text: PETSTORE_YAML },
      { name: 'notes.txt', contentType: 'text/plain', text: 'just notes' },
    ]);
    ok(await apply(space.id, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'petstore' } } } }), 201);
    const revision = await content(space.id);
    assertRevisionShape(revision);
    assertPages(revision.pages);
    const reference = revision.pages[1];
    assert.equal(reference.title, 'API Reference');
    assert.equal(reference.computed, undefined);
    assert.match(reference.markdown, /^# Petstore$/m);
    assert.match(reference.markdown, /https:\/\/petstore\.example\.com\/v1/);
    assert.deepEqual(
      reference.pages.map((page: any) => page.title),
      ['pets', 'store', 'default', 'Models'],
    );
    const [pets, store, untagged, models] = reference.pages;
    const spec = { ref: { kind: 'openapi', spec: 'petstore' } };
    assert.deepEqual(pets.computed, { type: 'builtin:openapi', dependencies: { spec }, props: { doc: 'operations', page: 'pets' } });
    assert.deepEqual(models.computed, { type: 'builtin:openapi', dependencies: { spec }, props: { doc: 'models' } });
    assert.equal(pets.computedSeed, pets.id);

    // Each operation: heading, summary, description, parameters (path-level ones too), body, responses.
    assert.match(pets.markdown, /^Everything about pets\.$/m);
    assert.match(pets.markdown, /^## GET \/pets$/m);
    assert.match(pets.markdown, /^\*\*List pets\*\*$/m);
    assert.match(pets.markdown, /^Every pet, oldest first\.$/m);
    assert.match(pets.markdown, /^\| limit \| query \| `integer \(int32\)` \| no \| How many \\\| at most \|$/m);
    assert.match(pets.markdown, /^\| X-Trace \| header \| `string` \| no \|/m);
    assert.match(pets.markdown, /^\| 200 \| A page of pets \| `application\/json`: `Pet\[\]` \|$/m);
    assert.match(pets.markdown, /^\| default \| An error \| `application\/json`: `Error` \|$/m);
    assert.match(pets.markdown, /^## POST \/pets$/m);
    assert.match(pets.markdown, /^`application\/json`: `NewPet` \(required\)$/m);
    assert.match(pets.markdown, /^## GET \/pets\/\{petId\}$/m);
    assert.match(pets.markdown, /\*\*Deprecated\.\*\*/);
    assert.match(pets.markdown, /^\| petId \| path \| `string` \| yes \|/m);
    assert.doesNotMatch(pets.markdown, /\/orders/);
    assert.match(store.markdown, /^## POST \/orders$/m);
    assert.match(untagged.markdown, /^## GET \/health$/m);
    // Models: properties (allOf parts included) with their types and whether required.
    assert.match(models.markdown, /^## Pet$/m);
    assert.match(models.markdown, /^\| id \| `integer \(int64\)` \| yes \|/m);
    assert.match(models.markdown, /^\| name \| `string` \| yes \| The pet's name \|$/m);
    assert.match(models.markdown, /^## Status$/m);
    assert.match(models.markdown, /^Values: `available`, `sold`$/m);

    // computed=false: the pages and their sources, no generated body.
    const raw = await content(space.id, '?computed=false');
    assertRevisionShape(raw);
    assert.equal(raw.pages[1].pages[0].markdown, '');
    assert.deepEqual(raw.pages[1].pages[0].computed, pets.computed);
    const page = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${pets.id}`));
    assertPageShape(page);
    assert.equal(page.markdown, pets.markdown);

    // Computed pages take no markdown of their own.
    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'try' }), 201);
    const rejected = await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
      changes: [{ type: 'update_page', page: pets.id, markdown: 'mine' }],
    });
    assertError(rejected, 400, 'changes.0.markdown');

    // A file ref (JSON, array form) onto a change request; the pages follow the file of their revision.
    const inventory = await write(space.id, cr.id, [
      { type: 'insert_files', files: [{ name: 'inventory.json', contentType: 'application/json', data: base64(INVENTORY_JSON) }] },
    ]);
    ok(
      await apply(space.id, { id: 'api-reference', changeRequestId: cr.id, params: { contentRefs: [{ kind: 'file', file: inventory.insertedFiles[0].id }] } }),
      201,
    );
    const crRevision = await crContent(space.id, cr.id);
    assertPages(crRevision.pages);
    const inventoryReference = crRevision.pages[crRevision.pages.length - 1];
    assert.deepEqual(
      inventoryReference.pages.map((p: any) => p.title),
      ['items'],
    );
    assert.equal(inventoryReference.pages[0].computed.dependencies.spec.ref.spec, 'inventory');
    assert.match(inventoryReference.pages[0].markdown, /^## GET \/items$/m);
    assert.equal(fileIds.length, 2);
  });

  it('creates a change request that starts with a template applied', async () => {
    const { space } = await spaceWithFiles('CR template', [{ name: 'petstore.yaml', contentType: 'application/yaml', text: PETSTORE_YAML }]);
    const main = await content(space.id);
    const created = await newChangeRequest(space.id, { subject: 'Docs', template: { id: 'getting-started' } });
    assertMatchesOpenApi('ChangeRequest', created);
    assert.equal(created.revisionInitial, main.id);
    assert.notEqual(created.revision, main.id);
    const revision = await crContent(space.id, created.id);
    assert.deepEqual(revision.parents, [main.id]);
    assert.deepEqual(
      revision.pages.map((page: any) => page.title),
      ['Existing', 'Welcome', 'Quickstart', 'Guides', 'FAQ'],
    );
    const api = await newChangeRequest(space.id, {
      subject: 'API',
      template: { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'petstore' } } } },
    });
    const apiRevision = await crContent(space.id, api.id);
    assert.equal(apiRevision.pages[1].title, 'API Reference');
    assert.equal(apiRevision.pages[1].pages.length, 4);
    assertPages(apiRevision.pages);
    // Merging brings the template into the primary content.
    ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests/${api.id}/merge`));
    assert.equal((await content(space.id)).pages[1].title, 'API Reference');
  });

  it('rejects bad templates (400 naming the field) before writing anything, and checks roles', async () => {
    const { space, fileIds } = await spaceWithFiles('Errors', [
      { name: 'notes.txt', contentType: 'text/plain', text: 'plain words' },
      { name: 'broken.yaml', contentType: 'application/yaml', text: 'openapi: [3.0\n  nope: {' },
      { name: 'swagger.json', contentType: 'application/json', text: JSON.stringify({ swagger: '2.0', paths: {} }) },
    ]);
    let main = await content(space.id);
    assertError(await apply(space.id, {}), 400, 'id');
    assertError(await apply(space.id, { id: '' }), 400, 'id');
    assertError(await apply(space.id, { id: 'unknown-template' }), 400, 'id');
    assertError(await apply(space.id, { id: 'getting-started', extra: 1 }), 400);
    assertError(await apply(space.id, { id: 'api-reference' }), 400, 'params.contentRefs');
    assertError(await apply(space.id, { id: 'api-reference', params: { contentRefs: {} } }), 400, 'params.contentRefs');
    assertError(
      await apply(space.id, { id: 'api-reference', params: { contentRefs: { a: { kind: 'url', url: 'https://example.com' } } } }),
      400,
      'params.contentRefs',
    );
    assertError(
      await apply(space.id, { id: 'api-reference', params: { contentRefs: { a: { kind: 'openapi', spec: 'notes' }, b: { kind: 'file', file: fileIds[0] } } } }),
      400,
      'params.contentRefs',
    );
    assertError(await apply(space.id, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi' } } } }), 400, 'params.contentRefs.spec.spec');
    assertError(
      await apply(space.id, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'missing' } } } }),
      400,
      'params.contentRefs.spec',
    );
    assertError(
      await apply(space.id, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'file', file: 'nofile' } } } }),
      400,
      'params.contentRefs.spec',
    );
    assertError(
      await apply(space.id, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'notes' } } } }),
      400,
      'params.contentRefs.spec',
    );
    assertError(
      await apply(space.id, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'file', file: fileIds[1] } } } }),
      400,
      'params.contentRefs.spec',
    );
    assertError(await apply(space.id, { id: 'api-reference', params: { contentRefs: [{ kind: 'openapi', spec: 'swagger' }] } }), 400, 'params.contentRefs.0');
    assertError(await apply(space.id, { id: 'getting-started', changeRequestId: 'x'.repeat(65) }), 400, 'changeRequestId');

    // Change requests: unknown → 404, merged → 409; the template's own 400 comes first.
    assertError(await apply(space.id, { id: 'getting-started', changeRequestId: 'nope' }), 404);
    assertError(await apply(space.id, { id: 'getting-started', changeRequestId: '999' }), 404);
    const merged = await newChangeRequest(space.id);
    ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests/${merged.id}/merge`));
    main = await content(space.id);
    assertError(await apply(space.id, { id: 'getting-started', changeRequestId: merged.id }), 409);
    assertError(await apply(space.id, { id: 'unknown-template', changeRequestId: merged.id }), 400, 'id');

    // Roles: edit needed (read, comment: 403); other organizations: 404.
    assertError(await apply(space.id, { id: 'getting-started' }, reader.api), 403);
    assertError(await apply(space.id, { id: 'getting-started' }, commenter.api), 403);
    assertError(await apply(space.id, { id: 'getting-started' }, outsider.api), 404);
    assertError(await apply('no-such-space', { id: 'getting-started' }), 404);
    assert.equal((await content(space.id)).id, main.id);

    // Creating a change request from a bad template creates nothing.
    const countBefore = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?status=open`)).count;
    assertError(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'x', template: { id: 'nope' } }), 400, 'template.id');
    assertError(
      await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'x', template: { id: 'api-reference' } }),
      400,
      'template.params.contentRefs',
    );
    assertError(
      await editor.api.post(`/v1/spaces/${space.id}/change-requests`, {
        subject: 'x',
        template: { id: 'api-reference', params: { contentRefs: { s: { kind: 'openapi', spec: 'missing' } } } },
      }),
      400,
      'template.params.contentRefs.s',
    );
    assertError(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'x', template: {} }), 400, 'template.id');
    assertError(await reader.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'x', template: { id: 'getting-started' } }), 403);
    assertError(await outsider.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'x', template: { id: 'getting-started' } }), 404);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests?status=open`)).count, countBefore);
    assert.equal((await content(space.id)).id, main.id);
  });

  it('survives hostile specifications: $ref cycles and diamonds, malformed $refs, amplification, too many tags', async () => {
    const huge = 'd'.repeat(10_000);
    const hostile = {
      openapi: '3.0.3',
      info: { title: 'Hostile', version: '1' },
      paths: {
        '/loop': { $ref: '#/paths/~1loop' },
        '/bad': { $ref: '#/paths/%E0%A4%A' },
        '/echo': {
          post: {
            tags: ['echo'],
            responses: { '200': { description: 'Odd', content: { 'application/json': { schema: { $ref: '#/components/schemas/Odd%E0' } } } } },
          },
        },
        '/flood': {
          get: {
            tags: ['flood'],
            // 300 responses repeating one 10,000-character description: 3 MB of text from a small file.
            responses: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [String(200 + i), { $ref: '#/components/responses/Huge' }])),
          },
        },
      },
      components: {
        responses: { Huge: { description: huge } },
        schemas: {
          // A and B include each other; C includes A twice and B: each property is listed once.
          A: { allOf: [{ $ref: '#/components/schemas/B' }, { $ref: '#/components/schemas/B' }], properties: { a: { type: 'string' } } },
          B: { allOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/A' }], properties: { b: { type: 'string' } } },
          C: {
            allOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }],
            properties: { c: { type: 'string' } },
          },
          // Six-way fan-out over a cycle of twelve: millions of paths without the once-each rule.
          ...Object.fromEntries(
            Array.from({ length: 12 }, (_, i) => [
              `F${i}`,
              { allOf: Array.from({ length: 6 }, () => ({ $ref: `#/components/schemas/F${(i + 1) % 12}` })), properties: { [`f${i}`]: { type: 'string' } } },
            ]),
          ),
        },
      },
    };
    const { space } = await spaceWithFiles('Hostile', [
      { name: 'hostile.json', contentType: 'application/json', text: JSON.stringify(hostile) },
      {
        name: 'tags.json',
        contentType: 'application/json',
        text: JSON.stringify({
          openapi: '3.0.3',
          paths: Object.fromEntries(
            Array.from({ length: 201 }, (_, i) => [`/t${i}`, { get: { tags: [`t${i}`], responses: { '200': { description: 'ok' } } } }]),
          ),
        }),
      },
    ]);
    ok(await apply(space.id, { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'hostile' } } } }), 201);
    const revision = await content(space.id);
    const reference = revision.pages[1];
    assert.deepEqual(
      reference.pages.map((page: any) => page.title),
      ['echo', 'flood', 'Models'],
    );
    const [echo, flood, models] = reference.pages;
    assert.match(echo.markdown, /^\| 200 \| Odd \| `application\/json`: `Odd%E0` \|$/m);
    assert.match(flood.markdown, /^## GET \/flood$/m);
    assert.ok(flood.markdown.length < 1_100_000, String(flood.markdown.length));
    assert.match(flood.markdown, /The rest of this page is left out/);
    const page = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${flood.id}`));
    assert.equal(page.markdown, flood.markdown);
    const rows = (model: string) => {
      const section = models.markdown.split(/^## /m).find((part: string) => part.startsWith(`${model}\n`)) ?? '';
      return section
        .split('\n')
        .filter((line: string) => line.startsWith('| ') && !line.startsWith('| Property') && !line.startsWith('| ---'))
        .map((line: string) => line.split(' | ')[0].slice(2));
    };
    assert.deepEqual(rows('A'), ['a', 'b']);
    assert.deepEqual(rows('C'), ['c', 'a', 'b']);
    assert.equal(new Set(rows('F0')).size, rows('F0').length);
    assert.ok(rows('F0').length >= 8);

    // One page per tag, within a bound: 201 tags is a 400 naming the reference, and nothing is written.
    const before = (await content(space.id)).id;
    assertError(
      await apply(space.id, { id: 'api-reference', params: { contentRefs: { big: { kind: 'openapi', spec: 'tags' } } } }),
      400,
      'params.contentRefs.big',
    );
    assert.equal((await content(space.id)).id, before);
  });

  it('works with the official GitBook client (applyTemplateToSpace)', async () => {
    const { space } = await spaceWithFiles('Client', [{ name: 'petstore.yaml', contentType: 'application/yaml', text: PETSTORE_YAML }]);
    const client: any = new GitBookAPI({ authToken: editor.token, endpoint: stack.baseUrl });
    const applied = await client.spaces.applyTemplateToSpace(space.id, { id: 'getting-started' });
    assert.equal(applied.status, 201);
    const cr = await client.spaces.createChangeRequest(space.id, { subject: 'API docs' });
    const onCr = await client.spaces.applyTemplateToSpace(space.id, {
      id: 'api-reference',
      params: { contentRefs: { spec: { kind: 'openapi', spec: 'petstore' } } },
      changeRequestId: cr.data.id,
    });
    assert.equal(onCr.status, 201);
    const pages = await client.spaces.listPagesInChangeRequest(space.id, cr.data.id);
    const titles = flat(pages.data.pages).map((page: any) => page.title);
    assert.ok(titles.includes('Welcome') && titles.includes('API Reference') && titles.includes('Models'));
    const listed = await client.spaces.listPages(space.id, { computed: false });
    assert.ok(flat(listed.data.pages).some((page: any) => page.title === 'Quickstart'));
    await assert.rejects(client.spaces.applyTemplateToSpace(space.id, { id: 'nope' }), (error: any) => error.code === 400);
  });
});
