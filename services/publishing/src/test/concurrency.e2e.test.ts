import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectOk, sharedTestStack, type ApiClient, type ApiResponse, type TestStack } from '@quire/testkit';

const PARALLEL = 8;

/**
 * The same write sent several times at once, and different writes to one site at once,
 * through the gateway: never a 500, and the site ends in a state one order of the writes
 * explains (nothing duplicated, nothing lost).
 */
describe('publishing: concurrent writes through the gateway', () => {
  let stack: TestStack;
  let admin: ApiClient;
  let org: string;
  const spaces: string[] = [];
  const sites = () => `/v1/orgs/${org}/sites`;

  /** `PARALLEL` copies of one request at once; none may be a 500, each must be one of `allowed`. */
  const burst = async (send: () => Promise<ApiResponse>, allowed: number[]) => {
    const answers = await Promise.all(Array.from({ length: PARALLEL }, send));
    for (const answer of answers) {
      assert.ok(allowed.includes(answer.status), `${answer.status}: ${JSON.stringify(answer.body)}`);
      if (answer.status >= 400) assert.equal(answer.body.error.code, answer.status);
    }
    return answers;
  };
  const newSite = async (body: Record<string, unknown> = {}) => expectOk(await admin.post(sites(), { title: 'Busy site', ...body }), 201).id as string;
  const list = async (path: string) => {
    const body = expectOk(await admin.get(`${path}?limit=1000`));
    assert.equal(body.count, body.items.length, 'count agrees with the items');
    return body.items as any[];
  };

  beforeAll(async () => {
    stack = await sharedTestStack();
    const organization = await stack.organization({ domain: 'concurrent.test', roles: [] });
    org = organization.id;
    admin = organization.admin.api;
    for (let i = 0; i < PARALLEL + 2; i++) spaces.push(expectOk(await admin.post(`/v1/orgs/${org}/spaces`, { title: `Space ${i}` }), 201).id);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('adds a space once when the same POST site-spaces arrives many times at once (the others are 409)', async () => {
    const site = await newSite({ spaces: [spaces[0]] });
    const answers = await burst(() => admin.post(`${sites()}/${site}/site-spaces`, { spaceId: spaces[1] }), [201, 409]);
    assert.equal(answers.filter((a) => a.status === 201).length, 1, 'exactly one addition');
    for (const conflict of answers.filter((a) => a.status === 409)) assert.match(conflict.body.error.message, /\bspaceId\b/);
    const items = await list(`${sites()}/${site}/site-spaces`);
    assert.deepEqual(
      items.map((s) => s.space.id),
      [spaces[0], spaces[1]],
    );
    assert.equal(expectOk(await admin.get(`${sites()}/${site}`)).siteSpaces, 2);
    // Pointing another site space at it is the same duplicate.
    const retarget = await admin.patch(`${sites()}/${site}/site-spaces/${items[0].id}`, { spaceId: spaces[1] });
    assert.equal(retarget.status, 409, JSON.stringify(retarget.body));
    assert.match(retarget.body.error.message, /\bspaceId\b/);
  });

  it('creates one section when the same POST sections arrives many times at once, gathering the root once', async () => {
    const site = await newSite({ spaces: [spaces[0]] });
    const answers = await burst(() => admin.post(`${sites()}/${site}/sections`, { spaceId: spaces[1], title: 'Reference' }), [201, 409]);
    assert.equal(answers.filter((a) => a.status === 201).length, 1, 'exactly one section');
    const sections = await list(`${sites()}/${site}/sections`);
    assert.equal(sections.length, 2, 'the gathering section and the new one');
    assert.deepEqual(
      sections.map((s) => s.siteSpaces.map((v: any) => v.space.id)),
      [[spaces[0]], [spaces[1]]],
    );
    assert.equal(new Set(sections.map((s) => s.path)).size, sections.length, 'section paths stay unique');
    assert.equal(sections.filter((s) => s.default).length, 1);
    assert.equal((await list(`${sites()}/${site}/site-spaces`)).length, 2);

    // The same update, move and removal at once: each is answered, the result is one of them.
    const created = sections[1].id;
    await burst(() => admin.patch(`${sites()}/${site}/sections/${created}`, { title: 'API reference', path: 'api' }), [200]);
    await burst(() => admin.post(`${sites()}/${site}/sections/${created}/move`, {}), [200]);
    const moved = await list(`${sites()}/${site}/sections`);
    assert.deepEqual(moved.map((s) => [s.id, s.path]).at(-1), [created, 'api']);
    await burst(() => admin.delete(`${sites()}/${site}/sections/${created}`), [204]);
    assert.deepEqual(
      (await list(`${sites()}/${site}/sections`)).map((s) => s.id),
      [sections[0].id],
    );
    assert.deepEqual(
      (await list(`${sites()}/${site}/site-spaces`)).map((s) => s.space.id),
      [spaces[0]],
    );
  });

  it('keeps every site space of different POSTs at once, each in its own position', async () => {
    const site = await newSite();
    const added = await Promise.all(spaces.slice(0, PARALLEL).map((spaceId) => admin.post(`${sites()}/${site}/site-spaces`, { spaceId })));
    for (const answer of added) expectOk(answer, 201);
    const items = await list(`${sites()}/${site}/site-spaces`);
    assert.deepEqual(items.map((s) => s.space.id).sort(), spaces.slice(0, PARALLEL).sort());
    assert.equal(new Set(items.map((s) => s.path)).size, PARALLEL);
    // Moving the first to the end puts it last: positions were not handed out twice.
    expectOk(await admin.post(`${sites()}/${site}/site-spaces/${items[0].id}/move`, {}));
    assert.equal((await list(`${sites()}/${site}/site-spaces`)).at(-1).id, items[0].id);
  });

  it('answers identical share-link, adaptive-schema and publish requests sent at once without a 500', async () => {
    const site = await newSite({ spaces: [spaces[0]] });
    const base = `${sites()}/${site}`;

    const links = await burst(() => admin.post(`${base}/share-links`, { name: 'Reviewers' }), [201]);
    const keys = links.map((l) => new URL(l.body.urls.published).searchParams.get('share'));
    assert.equal(new Set(links.map((l) => l.body.id)).size, PARALLEL, 'each POST is its own link');
    assert.equal(new Set(keys).size, PARALLEL, 'each with its own key');
    assert.equal((await list(`${base}/share-links`)).length, PARALLEL);
    const [link] = links;
    await burst(() => admin.patch(`${base}/share-links/${link.body.id}`, { active: false, name: 'Closed' }), [200]);
    const closed = (await list(`${base}/share-links`)).find((l) => l.id === link.body.id);
    assert.deepEqual([closed.active, closed.name], [false, 'Closed']);

    const jsonSchema = {
      type: 'object',
      properties: { beta: { type: 'boolean', description: 'Beta tester' } },
      additionalProperties: false,
    };
    await burst(() => admin.put(`${base}/adaptive-schema`, { jsonSchema }), [200]);
    assert.deepEqual(expectOk(await admin.get(`${base}/adaptive-schema`)).jsonSchema, jsonSchema);

    await burst(() => admin.post(`${base}/publish`), [200]);
    assert.equal(expectOk(await admin.get(base)).published, true);
    await burst(() => admin.post(`${base}/unpublish`), [200]);
    assert.equal(expectOk(await admin.get(base)).published, false);
  });

  it('loses none of several different updates of one site made at once', async () => {
    const site = await newSite({ spaces: [spaces[0]] });
    const base = `${sites()}/${site}`;
    const jsonSchema = { type: 'object', properties: { staff: { type: 'boolean', description: 'Staff' } }, additionalProperties: false };
    const answers = await Promise.all([
      admin.patch(base, { title: 'Renamed site' }),
      admin.post(`${base}/publish`),
      admin.put(`${base}/adaptive-schema`, { jsonSchema }),
      admin.patch(`${base}/publishing/auth`, { fallbackURL: 'https://login.example.com/fallback' }),
      admin.post(`${base}/site-spaces`, { spaceId: spaces[1] }),
      admin.post(`${base}/site-spaces`, { spaceId: spaces[2] }),
      admin.patch(base, { basename: 'renamed' }),
      admin.patch(`${base}/publishing/auth`, { logoutURL: 'https://login.example.com/logout' }),
    ]);
    for (const answer of answers) assert.ok(answer.status === 200 || answer.status === 201, `${answer.status}: ${JSON.stringify(answer.body)}`);
    const after = expectOk(await admin.get(base));
    assert.deepEqual([after.title, after.published, after.basename, after.siteSpaces], ['Renamed site', true, 'renamed', 3]);
    assert.deepEqual(expectOk(await admin.get(`${base}/adaptive-schema`)).jsonSchema, jsonSchema);
    const auth = expectOk(await admin.get(`${base}/publishing/auth`));
    assert.deepEqual([auth.fallbackURL, auth.logoutURL], ['https://login.example.com/fallback', 'https://login.example.com/logout']);
  });
});
