import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import {
  assertMatchesOpenApi,
  sharedTestStack,
  type TestAccount,
  type TestStack,
  expectError as assertError,
  expectOk as ok,
  expectEvery,
} from '@quire/testkit';
import { assertPageShape, assertRevisionShape } from './page-shapes';

/**
 * Content reads with every query parameter (metadata, computed, evaluated, format, paging,
 * links status), on the space, a change request and a revision; variables written through
 * content changes and carried through merges and updates.
 */
describe('content: reads, variables and evaluation (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let editor: TestAccount;
  let reader: TestAccount;
  let outsider: TestAccount;

  const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages)]);
  const newSpace = async (title: string) => ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201);
  const newChangeRequest = async (spaceId: string, subject = 'edit') => ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject }), 201);
  const write = (spaceId: string, cr: string, changes: unknown[], api = editor.api) =>
    api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/content?compat=false`, { changes });
  const merge = async (spaceId: string, cr: string) => ok(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr}/merge`));
  /** Applies `changes` to the space's content through a merged change request. */
  const commit = async (spaceId: string, changes: unknown[]) => {
    const cr = await newChangeRequest(spaceId);
    const written = ok(await write(spaceId, cr.id, changes));
    await merge(spaceId, cr.id);
    return written;
  };
  const content = async (spaceId: string, query = '') => ok(await reader.api.get(`/v1/spaces/${spaceId}/content${query}`));
  const pageByTitle = (revision: any, title: string) => flat(revision.pages).find((page) => page.title === title);
  const base64 = (text: string) => Buffer.from(text).toString('base64');

  beforeAll(async () => {
    stack = await sharedTestStack();
    const organization = await stack.organization({ domain: 'reads.test', roles: ['edit', 'read'] });
    ({ admin, outsider } = organization);
    orgId = organization.id;
    ({ edit: editor, read: reader } = organization.members);
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
  });

  it('sets space and page variables through content changes, in both forms, within their limits', async () => {
    const space = await newSpace('Variables');
    const cr = await newChangeRequest(space.id);
    ok(
      await write(space.id, cr.id, [
        { type: 'update_variables', variables: { product: 'Quire', version: 2, beta: true } },
        { type: 'insert_page', ref: 'intro', title: 'Intro', markdown: 'Hi', variables: { audience: 'developers' } },
        { operation: 'insert_page', document: { markdown: '# Second\n\nText' }, variables: { tone: 'casual' } },
      ]),
    );
    let revision = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`));
    assertRevisionShape(revision);
    assert.deepEqual(revision.variables, { product: 'Quire', version: '2', beta: 'true' });
    assert.deepEqual(pageByTitle(revision, 'Intro').variables, { audience: 'developers' });
    assert.deepEqual(pageByTitle(revision, 'Second').variables, { tone: 'casual' });

    // Merged into the current variables; null removes a name; replace drops the unlisted ones.
    const intro = pageByTitle(revision, 'Intro').id;
    ok(
      await write(space.id, cr.id, [
        { operation: 'update_variables', variables: { version: '3', beta: null } },
        { type: 'update_page', page: intro, variables: { audience: 'admins', level: '2' } },
      ]),
    );
    revision = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`));
    assert.deepEqual(revision.variables, { product: 'Quire', version: '3' });
    assert.deepEqual(pageByTitle(revision, 'Intro').variables, { audience: 'admins', level: '2' });
    ok(await write(space.id, cr.id, [{ type: 'update_variables', variables: { only: 'one' }, replace: true }]));
    revision = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`));
    assert.deepEqual(revision.variables, { only: 'one' });

    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, 'x']));
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { 'bad.name': 'x' } }]), 400, 'changes.0.variables');
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { '1st': 'x' } }]), 400, 'changes.0.variables.1st');
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { [`v${'x'.repeat(64)}`]: 'x' } }]), 400, 'changes.0.variables');
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { long: 'x'.repeat(257) } }]), 400, 'changes.0.variables.long');
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: many }]), 400, 'changes.0.variables');
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { a: 'x' }, replace: 'yes' }]), 400, 'changes.0.replace');
    assertError(await write(space.id, cr.id, [{ type: 'insert_page', title: 'P', variables: { ok: { nested: true } } }]), 400, 'changes.0.variables.ok');
    assertError(await write(space.id, cr.id, [{ type: 'update_page', page: intro, variables: many }]), 400, 'changes.0.variables');
    // Names that reach into prototypes are refused, not silently dropped (JSON keeps `__proto__` as a key).
    for (const reserved of ['__proto__', 'constructor', 'prototype']) {
      const rejected = await write(space.id, cr.id, [{ type: 'update_variables', variables: { [reserved]: 'x' } }]);
      assertError(rejected, 400, 'changes.0.variables');
      assert.match(rejected.body.error.message, /other than __proto__, constructor and prototype/);
      assertError(await write(space.id, cr.id, [{ type: 'insert_page', title: 'P', variables: { [reserved]: 'x' } }]), 400, 'changes.0.variables');
    }
    revision = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`));
    assert.deepEqual(revision.variables, { only: 'one' });
    // 100 already set + one more through a merge of the map: the limit holds on the result.
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`v${i}`, 'x']));
    ok(await write(space.id, cr.id, [{ type: 'update_variables', variables: hundred, replace: true }]));
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { extra: 'x' } }]), 400, 'changes.0.variables');
    // Writing variables needs the edit role; the space stays invisible to outsiders.
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { a: 'b' } }], reader.api), 403);
    assertError(await write(space.id, cr.id, [{ type: 'update_variables', variables: { a: 'b' } }], outsider.api), 404);
  });

  it('carries variables through merges and updates, three-way, with a 409 naming a variable both sides changed', async () => {
    const space = await newSpace('Variable merges');
    await commit(space.id, [
      { type: 'update_variables', variables: { shared: 'base', kept: 'yes' } },
      { type: 'insert_page', title: 'Page', markdown: 'Body', variables: { k: '1' } },
    ]);
    let main = await content(space.id);
    assert.deepEqual(main.variables, { shared: 'base', kept: 'yes' });
    const page = pageByTitle(main, 'Page').id;

    // Two change requests from the same base change different names: both survive.
    const first = await newChangeRequest(space.id);
    const second = await newChangeRequest(space.id);
    ok(
      await write(space.id, first.id, [
        { type: 'update_variables', variables: { fromFirst: '1', kept: null } },
        { type: 'update_page', page, title: 'Page (renamed)' },
      ]),
    );
    ok(
      await write(space.id, second.id, [
        { type: 'update_variables', variables: { fromSecond: '2' } },
        { type: 'update_page', page, variables: { k: '1', m: '2' } },
      ]),
    );
    await merge(space.id, first.id);
    await merge(space.id, second.id);
    main = await content(space.id);
    assert.deepEqual(main.variables, { shared: 'base', fromFirst: '1', fromSecond: '2' });
    const merged = pageByTitle(main, 'Page (renamed)');
    assert.deepEqual(merged.variables, { k: '1', m: '2' });

    // An update brings the space's variables into a change request.
    const third = await newChangeRequest(space.id);
    ok(await write(space.id, third.id, [{ type: 'insert_page', title: 'Third' }]));
    await commit(space.id, [{ type: 'update_variables', variables: { later: 'x' } }]);
    ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests/${third.id}/update`));
    const updated = ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${third.id}/content`));
    assert.equal(updated.variables.later, 'x');

    // Both sides set the same name differently: a conflict, like a page field, nothing written.
    const left = await newChangeRequest(space.id);
    const right = await newChangeRequest(space.id);
    ok(await write(space.id, left.id, [{ type: 'update_variables', variables: { shared: 'left' } }]));
    ok(
      await write(space.id, right.id, [
        { type: 'update_variables', variables: { shared: 'right' } },
        { type: 'update_page', page, variables: { k: 'right' } },
      ]),
    );
    await merge(space.id, left.id);
    await commit(space.id, [{ type: 'update_page', page, variables: { k: 'main' } }]);
    const before = (await content(space.id)).id;
    const conflict = await admin.api.post(`/v1/spaces/${space.id}/change-requests/${right.id}/merge`);
    assertError(conflict, 409);
    assert.match(conflict.body.error.message, /space variables: variable "shared"/);
    assert.match(conflict.body.error.message, /variable "k" changed differently/);
    assert.equal((await content(space.id)).id, before);
  });

  it('evaluates expressions on page reads: false (default), true and deterministic-only', async () => {
    const space = await newSpace('Expressions');
    const markdown = [
      'Product: {{ space.vars.product }} {{ space.vars.version }}',
      'Audience: {{ page.vars.audience }}',
      'Where: {{ page.title }} at {{ page.path }} in {{ space.title }}',
      'Now: {{ now }}',
      'Plan: [{{ visitor.claims.plan }}]',
      'Choice: {{ page.vars.audience == "developers" && !space.vars.missing ? "dev" : "other" }}',
      'Sum: {{ 1 + 2 }} / {{ space.vars.product + "-" + space.vars.version }}',
      'Broken: {{ this is not one }} {{ unknown.name }}',
      'Code: `{{ space.vars.product }}`',
    ].join('\n');
    await commit(space.id, [
      { type: 'update_variables', variables: { product: 'Quire', version: '2' } },
      { type: 'insert_page', ref: 'guide', title: 'Guide', slug: 'guide', markdown, variables: { audience: 'developers' } },
      { type: 'insert_page', into: 'guide', title: 'Child', slug: 'child', markdown: 'Child of {{ page.path }} for {{ page.vars.audience }}' },
    ]);
    const main = await content(space.id);
    const guide = pageByTitle(main, 'Guide');
    const read = async (path: string, query: string) => ok(await reader.api.get(`${path}${query}`));

    const check = async (path: string) => {
      const verbatim = await read(path, '');
      assertPageShape(verbatim);
      assert.equal(verbatim.markdown, markdown);
      assert.equal((await read(path, '?evaluated=false')).markdown, markdown);

      const all = await read(path, '?evaluated=true');
      assertPageShape(all);
      const lines = all.markdown.split('\n');
      assert.equal(lines[0], 'Product: Quire 2');
      assert.equal(lines[1], 'Audience: developers');
      assert.equal(lines[2], 'Where: Guide at guide in Expressions');
      assert.match(lines[3], /^Now: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      assert.equal(lines[4], 'Plan: []');
      assert.equal(lines[5], 'Choice: dev');
      assert.equal(lines[6], 'Sum: 3 / Quire-2');
      assert.equal(lines[7], 'Broken: {{ this is not one }} {{ unknown.name }}');
      assert.equal(lines[8], 'Code: `{{ space.vars.product }}`');
      // Sub-pages are evaluated with their own inputs.
      assert.equal(all.pages[0].markdown, 'Child of guide/child for ');

      const deterministic = (await read(path, '?evaluated=deterministic-only')).markdown.split('\n');
      assert.equal(deterministic[0], 'Product: Quire 2');
      assert.equal(deterministic[2], 'Where: Guide at guide in Expressions');
      assert.equal(deterministic[3], 'Now: {{ now }}');
      assert.equal(deterministic[4], 'Plan: [{{ visitor.claims.plan }}]');
      assert.equal(deterministic[5], 'Choice: dev');

      const document = await read(path, '?evaluated=true&format=document');
      assertPageShape(document);
      assert.match(JSON.stringify(document.document), /Product: Quire 2/);
      assertError(await reader.api.get(`${path}?evaluated=sometimes`), 400, 'evaluated');
    };
    await check(`/v1/spaces/${space.id}/content/page/${guide.id}`);
    await check(`/v1/spaces/${space.id}/content/path/guide`);
    await check(`/v1/spaces/${space.id}/revisions/${main.id}/page/${guide.id}`);
    await check(`/v1/spaces/${space.id}/revisions/${main.id}/path/guide`);
    const cr = await newChangeRequest(space.id);
    await check(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${guide.id}`);
    await check(`/v1/spaces/${space.id}/change-requests/${cr.number}/content/path/guide`);

    // The official client passes `evaluated` through unchanged.
    const client: any = new GitBookAPI({ authToken: reader.token, endpoint: stack.baseUrl });
    const viaClient = await client.spaces.getPageById(space.id, guide.id, { evaluated: true });
    assert.match(viaClient.data.markdown, /^Product: Quire 2$/m);
  });

  it('leaves code (indented and unclosed fences too) and oversized expressions verbatim, in one pass over hostile markdown', async () => {
    const space = await newSpace('Hostile expressions');
    const fenced = [
      'Top: {{ space.title }}',
      '- item',
      '',
      '  ```',
      '  In list: {{ space.title }}',
      '  ```',
      '',
      'After: {{ space.title }}',
      '```inline``` then {{ space.title }}',
      '```',
      'Unclosed: {{ space.title }}',
    ].join('\n');
    const deep = `Deep: {{ ${'1+'.repeat(10_000)}1 }} Short: {{ ${'1+'.repeat(10)}1 }}`;
    // Markdown at its size limit made of expression openers with no end, and of fences with no end.
    const braces = '{{'.repeat(499_999);
    const fences = `{{ space.title\n${'```a\n'.repeat(199_990)}`;
    await commit(space.id, [
      { type: 'insert_page', title: 'Fenced', slug: 'fenced', markdown: fenced },
      { type: 'insert_page', title: 'Deep', slug: 'deep', markdown: deep },
      { type: 'insert_page', title: 'Braces', slug: 'braces', markdown: braces },
      { type: 'insert_page', title: 'Fences', slug: 'fences', markdown: fences },
    ]);
    const evaluated = async (slug: string) => ok(await reader.api.get(`/v1/spaces/${space.id}/content/path/${slug}?evaluated=true`)).markdown;
    assert.equal(
      await evaluated('fenced'),
      fenced
        .replace('Top: {{ space.title }}', 'Top: Hostile expressions')
        .replace('After: {{ space.title }}', 'After: Hostile expressions')
        .replace('then {{ space.title }}', 'then Hostile expressions'),
    );
    assert.equal(await evaluated('deep'), `Deep: {{ ${'1+'.repeat(10_000)}1 }} Short: 11`);
    assert.equal(await evaluated('braces'), braces);
    assert.equal(await evaluated('fences'), fences);
  }, 120_000);

  it('generates computed pages unless computed=false, and omits git metadata with metadata=false', async () => {
    const space = await newSpace('Computed');
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1.0.0' },
      paths: { '/pets': { get: { tags: ['pets'], summary: 'List pets', responses: { '200': { description: 'The pets' } } } } },
      components: { schemas: { Pet: { type: 'object', properties: { name: { type: 'string' } } } } },
    };
    await commit(space.id, [
      { type: 'insert_files', files: [{ name: 'pets.json', contentType: 'application/json', data: base64(JSON.stringify(spec)) }] },
      { type: 'insert_page', title: 'Plain', markdown: 'Plain body', variables: { a: '1' } },
      { type: 'update_variables', variables: { product: 'Quire' } },
    ]);
    ok(
      await editor.api.post(`/v1/spaces/${space.id}/content/template`, {
        id: 'api-reference',
        params: { contentRefs: { spec: { kind: 'openapi', spec: 'pets' } } },
      }),
      201,
    );

    const computed = await content(space.id);
    assertRevisionShape(computed);
    const tag = pageByTitle(computed, 'pets');
    assert.deepEqual(tag.computed, {
      type: 'builtin:openapi',
      dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } },
      props: { doc: 'operations', page: 'pets' },
    });
    assert.equal(typeof tag.computedSeed, 'string');
    assert.equal(tag.documentId, undefined);
    assert.match(tag.markdown, /^## GET \/pets$/m);
    assert.match(pageByTitle(computed, 'Models').markdown, /^## Pet$/m);

    const skipped = await content(space.id, '?computed=false');
    assertRevisionShape(skipped);
    assert.equal(pageByTitle(skipped, 'pets').markdown, '');
    assert.deepEqual(pageByTitle(skipped, 'pets').computed, tag.computed);
    assert.equal(pageByTitle(skipped, 'Plain').markdown, 'Plain body');

    const pages = ok(await reader.api.get(`/v1/spaces/${space.id}/content/pages?computed=false`)).pages;
    assert.equal(pageByTitle({ pages }, 'pets').markdown, '');
    assert.match(pageByTitle({ pages: ok(await reader.api.get(`/v1/spaces/${space.id}/content/pages`)).pages }, 'pets').markdown, /GET \/pets/);

    const one = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${tag.id}?computed=false`));
    assertPageShape(one);
    assert.equal(one.markdown, '');
    const generated = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${tag.id}?computed=true`));
    assertPageShape(generated);
    assert.match(generated.markdown, /\*\*List pets\*\*/);
    const reference = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${pageByTitle(computed, 'API Reference').id}`));
    assert.equal(reference.pages.length, 2);
    assert.match(reference.pages[0].markdown, /GET \/pets/);

    // metadata=false: no git keys anywhere; variables and computed sources stay.
    for (const query of ['?metadata=false', '?metadata=false&computed=false']) {
      const bare = await content(space.id, query);
      assertRevisionShape(bare);
      assert.equal(bare.git, undefined);
      assert.deepEqual(bare.variables, { product: 'Quire' });
      for (const page of flat(bare.pages)) assert.equal(page.git, undefined);
      for (const file of bare.files) assert.equal(file.git, undefined);
      assert.deepEqual(pageByTitle(bare, 'Plain').variables, { a: '1' });
      assert.deepEqual(pageByTitle(bare, 'pets').computed, tag.computed);
    }
    const barePages = ok(await reader.api.get(`/v1/spaces/${space.id}/content/pages?metadata=false`)).pages;
    expectEvery(flat(barePages), (page) => page.git === undefined);
    const barePage = ok(await reader.api.get(`/v1/spaces/${space.id}/content/page/${tag.id}?metadata=false`));
    assert.equal(barePage.git, undefined);
    assert.deepEqual(barePage.computed, tag.computed);
    const files = ok(await reader.api.get(`/v1/spaces/${space.id}/content/files?metadata=false`));
    expectEvery(files.items, (file: any) => file.git === undefined);
    const file = ok(await reader.api.get(`/v1/spaces/${space.id}/content/files/${computed.files[0].id}?metadata=false&computed=false`));
    assertMatchesOpenApi('RevisionFile', file);
    assert.equal(file.git, undefined);

    assertError(await reader.api.get(`/v1/spaces/${space.id}/content?metadata=perhaps`), 400, 'metadata');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/pages?computed=2`), 400, 'computed');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/files?metadata=no`), 400, 'metadata');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/files/${file.id}?computed=maybe`), 400, 'computed');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/page/${tag.id}?metadata=x`), 400, 'metadata');
  });

  it('pages through files, answers files and their backlinks, and 404s what is missing or invisible', async () => {
    const space = await newSpace('Files');
    const written = await commit(space.id, [
      {
        type: 'insert_files',
        files: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ ref: name, name: `${name}.txt`, contentType: 'text/plain', data: base64(`file ${name}`) })),
      },
    ]);
    const ids: string[] = written.insertedFiles.map((file: any) => file.id);
    await commit(space.id, [
      { type: 'insert_page', title: 'Uses a file', slug: 'uses', markdown: `See [the file](/files/${ids[0]}) and ![img](/files/${ids[0]}).` },
    ]);

    const seen: string[] = [];
    let cursor: string | undefined;
    let rounds = 0;
    do {
      const page = ok(await reader.api.get(`/v1/spaces/${space.id}/content/files?limit=2${cursor ? `&page=${encodeURIComponent(cursor)}` : ''}`));
      assert.equal(page.count, 5);
      assert.ok(page.items.length <= 2);
      for (const file of page.items) assertMatchesOpenApi('RevisionFile', file);
      seen.push(...page.items.map((file: any) => file.id));
      cursor = page.next?.page;
      rounds += 1;
    } while (cursor);
    assert.equal(rounds, 3);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    assert.equal(new Set(seen).size, 5);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/files?limit=0`), 400, 'limit');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/files?limit=1001`), 400, 'limit');

    const file = ok(await reader.api.get(`/v1/spaces/${space.id}/content/files/${ids[0]}`));
    assertMatchesOpenApi('RevisionFile', file);
    assert.equal(file.name, 'a.txt');
    assert.equal(file.size, 'file a'.length);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/files/nope`), 404);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/files/nope/backlinks`), 404);

    const main = await content(space.id);
    const uses = pageByTitle(main, 'Uses a file').id;
    const backlinks = ok(await reader.api.get(`/v1/spaces/${space.id}/content/files/${ids[0]}/backlinks`));
    assert.equal(backlinks.count, 1);
    assert.equal(backlinks.items[0].page, uses);
    assert.deepEqual(backlinks.items[0].versionContext, { type: 'revision', revision: main.id });
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/content/files/${ids[1]}/backlinks`)).count, 0);

    // The same reads under a change request and a revision.
    const cr = await newChangeRequest(space.id);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/files?limit=10`)).count, 5);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/files/${ids[2]}`)).name, 'c.txt');
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/revisions/${main.id}/files/${ids[3]}`)).name, 'd.txt');
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/files/${ids[0]}/backlinks`)).count, 1);

    // A revision's own lists stay what they were when it was made, whatever main does later.
    const revision = `/v1/spaces/${space.id}/revisions/${main.id}`;
    await commit(space.id, [{ type: 'insert_page', title: 'Added later', markdown: 'later' }]);
    const revisionPages = ok(await reader.api.get(`${revision}/pages`)).pages;
    assert.deepEqual(revisionPages.map((page: any) => page.id).sort(), main.pages.map((page: any) => page.id).sort());
    assert.ok(!revisionPages.some((page: any) => page.title === 'Added later'));
    assert.ok(ok(await reader.api.get(`/v1/spaces/${space.id}/content/pages`)).pages.some((page: any) => page.title === 'Added later'));
    const revisionFiles = ok(await reader.api.get(`${revision}/files?limit=2`));
    assert.equal(revisionFiles.count, 5);
    assert.equal(revisionFiles.items.length, 2);
    for (const item of revisionFiles.items) assertMatchesOpenApi('RevisionFile', item);
    const second = ok(await reader.api.get(`${revision}/files?limit=2&page=${encodeURIComponent(revisionFiles.next.page)}`));
    assert.equal(second.items.filter((item: any) => revisionFiles.items.some((first: any) => first.id === item.id)).length, 0, 'the next page repeats nothing');
    const revisionBacklinks = ok(await reader.api.get(`${revision}/files/${ids[0]}/backlinks`));
    assert.equal(revisionBacklinks.count, 1);
    assert.equal(revisionBacklinks.items[0].page, uses);
    assertError(await reader.api.get(`${revision}/files/nope/backlinks`), 404);
    assertError(await reader.api.get(`${revision}/files?limit=0`), 400, 'limit');
    for (const path of ['/pages', '/files', `/files/${ids[0]}/backlinks`]) {
      assertError(await outsider.api.get(`${revision}${path}`), 404);
      assertError(await reader.api.get(`/v1/spaces/${space.id}/revisions/nope${path}`), 404);
    }

    for (const path of [
      `/content`,
      `/content/pages`,
      `/content/files`,
      `/content/files/${ids[0]}`,
      `/content/page/${uses}`,
      `/revisions/${main.id}`,
      `/change-requests/${cr.id}/content`,
    ]) {
      assertError(await outsider.api.get(`/v1/spaces/${space.id}${path}`), 404);
    }
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/page/nope`), 404);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/content/path/no/such/page`), 404);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/revisions/nope/page/${uses}`), 404);
    assertError(await reader.api.get(`/v1/spaces/${space.id}/change-requests/999/content/page/${uses}`), 404);
    const other = await newSpace('Other');
    assertError(await reader.api.get(`/v1/spaces/${other.id}/revisions/${main.id}`), 404);
  });

  it("answers a revision's file only from that revision of a visible space: 404 for unknown or later files, revisions and outsiders, 400 on bad input", async () => {
    const space = await newSpace('Revision files');
    const first = await commit(space.id, [{ type: 'insert_files', files: [{ ref: 'a', name: 'a.txt', contentType: 'text/plain', data: base64('first') }] }]);
    const revision = ok(await reader.api.get(`/v1/spaces/${space.id}`)).revision as string;
    const later = await commit(space.id, [{ type: 'insert_files', files: [{ ref: 'b', name: 'b.txt', contentType: 'text/plain', data: base64('later') }] }]);
    const [fileId, laterId] = [first.insertedFiles[0].id, later.insertedFiles[0].id];
    const other = await newSpace('Other revision files');
    const at = (path: string) => `/v1/spaces/${space.id}/revisions/${revision}${path}`;

    const file = ok(await reader.api.get(at(`/files/${fileId}`)));
    assertMatchesOpenApi('RevisionFile', file);
    assert.deepEqual([file.id, file.name, file.size], [fileId, 'a.txt', 'first'.length]);

    assertError(await reader.api.get(at('/files/no-such-file')), 404, 'File');
    assertError(await reader.api.get(at(`/files/${laterId}`)), 404, 'File');
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}/content/files/${laterId}`)).name, 'b.txt', 'the later file is in main, not in the revision');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/revisions/no-such-revision/files/${fileId}`), 404);
    assertError(await reader.api.get(`/v1/spaces/${other.id}/revisions/${revision}/files/${fileId}`), 404, 'Revision');
    assertError(await outsider.api.get(at(`/files/${fileId}`)), 404);
    assertError(await reader.api.get(at(`/files/${'f'.repeat(65)}`)), 400, 'fileId');
    assertError(await reader.api.get(at(`/files/${fileId}?metadata=perhaps`)), 400, 'metadata');
  });

  it('serves no upload as active content: allowed images inline with their type, anything else an opaque attachment, every answer sandboxed', async () => {
    const space = await newSpace('Hostile files');
    const script = '<script>parent.document.title = "ran"</script>';
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    // [name, stored type, bytes, served type (undefined: an attachment)]
    const cases: Array<[string, string, Buffer, string | undefined]> = [
      ['pixel.png', 'image/png', png, 'image/png'],
      ['photo.jpg', 'IMAGE/JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
      ['anim.gif', 'image/gif', Buffer.from('GIF89a'), 'image/gif'],
      ['pic.webp', 'image/webp', Buffer.from('RIFF\0\0\0\0WEBP'), 'image/webp'],
      ['pic.avif', 'image/avif', Buffer.from('\0\0\0\x1cftypavif'), 'image/avif'],
      // HTML under an image type: shown as an image (never sniffed), so nothing runs.
      ['liar.png', 'image/png', Buffer.from(script), 'image/png'],
      ['probe.html', 'text/html', Buffer.from(script), undefined],
      ['probe.svg', 'image/svg+xml', Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg">${script}</svg>`), undefined],
      ['probe.xml', 'application/xml', Buffer.from('<?xml version="1.0"?><a/>'), undefined],
      ['probe.xhtml', 'application/xhtml+xml', Buffer.from(`<html xmlns="http://www.w3.org/1999/xhtml">${script}</html>`), undefined],
      ['probe.js', 'text/javascript', Buffer.from('document.title = "ran"'), undefined],
      ['manual.pdf', 'application/pdf', Buffer.from('%PDF-1.4\n'), undefined],
      ['icon.ico', 'image/x-icon', Buffer.from([0, 0, 1, 0]), undefined],
      ['notes.txt', 'text/plain', Buffer.from(script), undefined],
      ['mystery.bin', 'application/x-unheard-of', Buffer.from(script), undefined],
    ];
    const written = await commit(space.id, [
      { type: 'insert_files', files: cases.map(([name, contentType, data]) => ({ ref: name, name, contentType, data: data.toString('base64') })) },
    ]);
    const ids = new Map<string, string>(written.insertedFiles.map((file: any) => [file.name, file.id]));
    for (const [name, stored, bytes, inline] of cases) {
      const file = ok(await reader.api.get(`/v1/spaces/${space.id}/content/files/${ids.get(name)}`));
      assert.equal(file.contentType, stored, 'the API keeps the stored type');
      const download = await fetch(file.downloadURL);
      assert.equal(download.status, 200, name);
      const headers = Object.fromEntries(
        ['content-type', 'content-disposition', 'content-security-policy', 'x-content-type-options', 'cross-origin-resource-policy'].map((header) => [
          header,
          download.headers.get(header),
        ]),
      );
      assert.deepEqual(
        headers,
        {
          'content-type': inline ?? 'application/octet-stream',
          'content-disposition': `${inline ? 'inline' : 'attachment'}; filename="${name}"; filename*=UTF-8''${name}`,
          'content-security-policy': "sandbox; default-src 'none'",
          'x-content-type-options': 'nosniff',
          'cross-origin-resource-policy': inline ? 'cross-origin' : 'same-origin',
        },
        name,
      );
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes, `${name}: the bytes as stored`);
    }

    // A change request's PDF (rendered by us, from the writers' text): its type, as an attachment, sandboxed.
    const cr = await newChangeRequest(space.id);
    const pdf = await fetch(ok(await reader.api.get(`/v1/spaces/${space.id}/change-requests/${cr.id}/pdf`)).url);
    assert.equal(pdf.status, 200);
    assert.deepEqual(
      ['content-type', 'content-security-policy', 'x-content-type-options'].map((header) => pdf.headers.get(header)),
      ['application/pdf', "sandbox; default-src 'none'", 'nosniff'],
    );
    assert.match(pdf.headers.get('content-disposition') ?? '', /^attachment; filename="change-request-\d+\.pdf"/);
  });

  it('lists page links filtered by status and page backlinks, on the space, a change request and a revision', async () => {
    const space = await newSpace('Links');
    await commit(space.id, [{ type: 'insert_page', title: 'Target', slug: 'target', markdown: 'I am linked to.' }]);
    const target = pageByTitle(await content(space.id), 'Target');
    const appBase = String(target.urls.app).split('/s/')[0];
    await commit(space.id, [
      {
        type: 'insert_page',
        title: 'Source',
        slug: 'source',
        markdown: [
          `[by path](/target) [by id](/pages/${target.id}) [missing](/nowhere)`,
          `[external](https://example.com/docs) [in app](${appBase}/s/${space.id})`,
        ].join('\n'),
      },
    ]);
    const main = await content(space.id);
    const source = pageByTitle(main, 'Source');
    const cr = await newChangeRequest(space.id);
    for (const prefix of [
      `/v1/spaces/${space.id}/content`,
      `/v1/spaces/${space.id}/change-requests/${cr.id}/content`,
      `/v1/spaces/${space.id}/revisions/${main.id}`,
    ]) {
      const all = ok(await reader.api.get(`${prefix}/page/${source.id}/links`));
      // Both internal links reach the same page: one item with its target.
      assert.equal(all.count, 4);
      const statuses = (query: string) => reader.api.get(`${prefix}/page/${source.id}/links?status=${query}`).then((r) => ok(r));
      const okLinks = await statuses('ok');
      assert.equal(okLinks.count, 2);
      assert.ok(okLinks.items.some((item: any) => item.targetReference.kind === 'page' && item.targetReference.page === target.id));
      const broken = await statuses('broken');
      assert.equal(broken.count, 1);
      assert.equal(broken.items[0].targetReference.url, '/nowhere');
      assert.equal((await statuses('in-app')).count, 1);
      assertError(await reader.api.get(`${prefix}/page/${source.id}/links?status=fine`), 400, 'status');
      const limited = ok(await reader.api.get(`${prefix}/page/${source.id}/links?limit=3`));
      assert.equal(limited.items.length, 3);
      assert.ok(limited.next?.page);

      const backlinks = ok(await reader.api.get(`${prefix}/page/${target.id}/backlinks`));
      assert.equal(backlinks.count, 1);
      assert.equal(backlinks.items[0].page, source.id);
      assert.equal(ok(await reader.api.get(`${prefix}/page/${source.id}/backlinks`)).count, 0);
      assertError(await reader.api.get(`${prefix}/page/nope/links`), 404);
      assertError(await reader.api.get(`${prefix}/page/nope/backlinks`), 404);
    }
  });
});
