import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { MongoClient } from 'mongodb';
import { createLogger, createRedis } from '@quire/runtime';
import { assertMatchesOpenApi, startTestStack, type TestAccount, type TestStack, expectError as assertError, expectOk as ok } from '@quire/testkit';

// Short enough to watch a deleted space being purged with its comments.
const RETENTION_MS = 5_000;
const LOCK_WAIT_MS = 5_000;

/**
 * Space comments, change request comments, replies, reactions and commenters through the
 * gateway: shapes (OpenAPI Comment, CommentReply, OrganizationMember), the official client,
 * filters and keyset pages, permissions, open-comment counters under concurrency.
 */
describe('content: comments (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let editor: TestAccount;
  let commenter: TestAccount;
  let reader: TestAccount;
  let guest: TestAccount;
  let outsider: TestAccount;

  const ids = (body: { items: Array<{ id: string }> }) => body.items.map((item) => item.id);
  // The package's typings do not resolve under this module setting: the client is used untyped, as elsewhere.
  const clientOf = (account: TestAccount): any => new GitBookAPI({ authToken: account.token, endpoint: stack.baseUrl });

  /** A space with one page in its main content (written in a change request, merged). */
  const newSpace = async (title: string) => {
    const space = ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201);
    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'seed' }), 201);
    const written = ok(
      await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
        changes: [
          { type: 'insert_page', title: 'Guide', markdown: 'Read me' },
          { type: 'insert_page', title: 'Setup', markdown: 'Install' },
        ],
      }),
    );
    ok(await admin.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/merge`));
    const [guide, setup] = written.changes.map((change: any) => change.page.id);
    return {
      id: space.id as string,
      guide: guide as string,
      setup: setup as string,
      revision: ok(await reader.api.get(`/v1/spaces/${space.id}`)).revision as string,
    };
  };
  const post = async (account: TestAccount, base: string, markdown: string, extra: Record<string, unknown> = {}) =>
    ok(await account.api.post(`${base}/comments`, { body: { markdown }, ...extra }));
  const openCount = async (base: string) => ok(await reader.api.get(`${base}/comments?status=open&limit=1`)).count as number;

  beforeAll(async () => {
    // A busy lock answers 503 after 5 s here (30 s by default), so the test below need not wait 30 s.
    stack = await startTestStack({ SPACE_RETENTION_MS: String(RETENTION_MS), RATE_LIMIT_POINTS: '100000', CONTENT_LOCK_WAIT_MS: String(LOCK_WAIT_MS) });
    const organization = await stack.organization({ domain: 'comments.test', roles: ['edit', 'comment', 'read', 'guest'] });
    ({ admin, outsider } = organization);
    orgId = organization.id;
    ({ edit: editor, comment: commenter, read: reader, guest } = organization.members);
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
  });

  it('posts, reads and lists space comments through the official client, in the OpenAPI Comment shape', async () => {
    const space = await newSpace('Client');
    const client = clientOf(commenter);
    const posted = await client.spaces.postCommentInSpace(space.id, { body: { markdown: 'Is this **right**?' }, page: space.guide, node: 'node-1' });
    assert.equal(posted.status, 200);
    const comment: any = posted.data;
    assertMatchesOpenApi('Comment', comment);
    assert.equal(comment.object, 'comment');
    assert.equal(comment.postedBy.id, commenter.userId);
    assert.equal(comment.postedBy.object, 'user');
    assert.deepEqual(comment.body, { markdown: 'Is this **right**?' });
    assert.deepEqual(comment.target, { node: { id: 'node-1' }, page: { id: space.guide }, space: space.id, revision: space.revision });
    assert.deepEqual([comment.status, comment.replies, comment.repliers, comment.reactions], ['open', 0, [], []]);
    assert.equal(comment.editedAt, undefined);
    assert.equal(comment.resolvedAt, undefined);
    assert.equal(comment.urls.location, `${stack.baseUrl}/v1/spaces/${space.id}/comments/${comment.id}`);
    assert.deepEqual(comment.permissions, { view: true, edit: true, reply: true, delete: true });

    const fetched: any = (await client.spaces.getCommentInSpace(space.id, comment.id)).data;
    assert.deepEqual(fetched, comment);
    assert.deepEqual(ok(await reader.api.get(comment.urls.location.slice(stack.baseUrl.length))).body, comment.body);
    const asDocument: any = (await client.spaces.getCommentInSpace(space.id, comment.id, { format: 'document' })).data;
    assertMatchesOpenApi('Comment', asDocument);
    assert.equal(asDocument.body.document.object, 'document');
    assert.equal(asDocument.body.document.nodes[0].nodes[0].leaves[0].text, 'Is this **right**?');

    const listed: any = (await client.spaces.listCommentsInSpace(space.id)).data;
    assert.deepEqual(ids(listed), [comment.id]);
    assert.equal(listed.count, 1);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}`)).comments, 1, 'Space.comments counts open comments');

    // The caller's permissions, from the rules the checks use.
    assert.deepEqual(ok(await reader.api.get(`/v1/spaces/${space.id}/comments/${comment.id}`)).permissions, {
      view: true,
      edit: false,
      reply: false,
      delete: false,
    });
    assert.deepEqual(ok(await editor.api.get(`/v1/spaces/${space.id}/comments/${comment.id}`)).permissions, {
      view: true,
      edit: false,
      reply: true,
      delete: false,
    });
    assert.deepEqual(ok(await admin.api.get(`/v1/spaces/${space.id}/comments/${comment.id}`)).permissions, {
      view: true,
      edit: false,
      reply: true,
      delete: true,
    });

    // A GitBook JSON document body is taken as its text; a table cell is a target.
    const fromDocument = ok(
      await editor.api.post(`/v1/spaces/${space.id}/comments`, {
        body: {
          document: {
            object: 'document',
            data: {},
            nodes: [
              { object: 'block', type: 'heading-2', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Title', marks: [] }] }] },
              {
                object: 'block',
                type: 'paragraph',
                nodes: [
                  { object: 'text', leaves: [{ object: 'leaf', text: 'Hello ', marks: [] }] },
                  { object: 'inline', type: 'link', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'world', marks: [] }] }] },
                ],
              },
            ],
          },
        },
        tableCell: { record: 'r1', definition: 'd1' },
      }),
    );
    assertMatchesOpenApi('Comment', fromDocument);
    assert.deepEqual(fromDocument.body, { markdown: '## Title\n\nHello world' });
    assert.deepEqual(fromDocument.target, { tableCell: { record: 'r1', definition: 'd1' }, space: space.id, revision: space.revision });
  });

  it('refuses invalid input with a 400 naming the field', async () => {
    const space = await newSpace('Validation');
    const base = `/v1/spaces/${space.id}`;
    const comment = await post(commenter, base, 'valid');
    const cases: Array<[Promise<{ status: number; body: any }>, string]> = [
      [commenter.api.post(`${base}/comments`, {}), 'body'],
      [commenter.api.post(`${base}/comments`, { body: { markdown: '  ' } }), 'body.markdown'],
      [commenter.api.post(`${base}/comments`, { body: { markdown: 'x'.repeat(20_001) } }), 'body.markdown'],
      [commenter.api.post(`${base}/comments`, { body: {} }), 'body'],
      [commenter.api.post(`${base}/comments`, { body: { document: { object: 'document', nodes: [] } } }), 'body'],
      [commenter.api.post(`${base}/comments`, { body: { markdown: 'x' }, page: 'no-such-page' }), 'page'],
      [commenter.api.post(`${base}/comments`, { body: { markdown: 'x' }, tableCell: { record: 'r' } }), 'tableCell.definition'],
      [commenter.api.post(`${base}/comments`, { body: { markdown: 'x' }, node: 7 }), 'node'],
      [commenter.api.post(`${base}/comments`, { body: { markdown: 'x' }, pageId: space.guide }), 'pageId'],
      [reader.api.get(`${base}/comments?order=sideways`), 'order'],
      [reader.api.get(`${base}/comments?status=closed`), 'status'],
      [reader.api.get(`${base}/comments?limit=0`), 'limit'],
      [reader.api.get(`${base}/comments?limit=1001`), 'limit'],
      [reader.api.get(`${base}/comments?format=html`), 'format'],
      [reader.api.get(`${base}/comments?page=junk`), 'page'],
      [commenter.api.put(`${base}/comments/${comment.id}`, { addedReactions: '👍' }), 'addedReactions'],
      [commenter.api.put(`${base}/comments/${comment.id}`, { resolved: 'yes' }), 'resolved'],
      [commenter.api.put(`${base}/comments/${comment.id}`, { body: { markdown: '' } }), 'body.markdown'],
      [commenter.api.post(`${base}/comments/${comment.id}/replies`, { body: 'plain' }), 'body'],
    ];
    for (const [response, field] of cases) assertError(await response, 400, field);
    const reply = ok(await commenter.api.post(`${base}/comments/${comment.id}/replies`, { body: { markdown: 'r' } }));
    assertError(await commenter.api.put(`${base}/comments/${comment.id}/replies/${reply.id}`, { resolved: true }), 400, 'resolved');
    assert.equal(await openCount(base), 1, 'rejected posts store nothing');
    assert.equal(ok(await reader.api.get(base)).comments, 1);
  });

  it('filters by status, target page and authors, orders by postedAt and pages with keyset cursors', async () => {
    const space = await newSpace('Filters');
    const base = `/v1/spaces/${space.id}`;
    const made: Array<{ id: string; author: string; page: string | null }> = [];
    const plan: Array<[TestAccount, string | null]> = [
      [commenter, space.guide],
      [editor, space.setup],
      [admin, null],
      [commenter, space.setup],
      [editor, space.guide],
      [commenter, null],
      [admin, space.guide],
    ];
    for (const [account, page] of plan) {
      const comment = await post(account, base, `by ${account.userId}`, page ? { page } : {});
      made.push({ id: comment.id, author: account.userId, page });
    }
    const resolved = [made[1].id, made[4].id];
    for (const id of resolved) ok(await commenter.api.put(`${base}/comments/${id}`, { resolved: true }));

    const newestFirst = made.map((c) => c.id).reverse();
    assert.deepEqual(ids(ok(await reader.api.get(`${base}/comments`))), newestFirst, 'default: newest first');
    assert.deepEqual(ids(ok(await reader.api.get(`${base}/comments?order=asc`))), [...newestFirst].reverse());
    const byStatus = async (status: string) => ids(ok(await reader.api.get(`${base}/comments?status=${status}`)));
    assert.deepEqual(
      await byStatus('resolved'),
      newestFirst.filter((id) => resolved.includes(id)),
    );
    assert.deepEqual(
      await byStatus('open'),
      newestFirst.filter((id) => !resolved.includes(id)),
    );
    assert.deepEqual(await byStatus('all'), newestFirst);
    const onGuide = made
      .filter((c) => c.page === space.guide)
      .map((c) => c.id)
      .reverse();
    assert.deepEqual(ids(ok(await reader.api.get(`${base}/comments?targetPage=${space.guide}`))), onGuide);
    const byAuthors = made
      .filter((c) => c.author !== editor.userId)
      .map((c) => c.id)
      .reverse();
    assert.deepEqual(ids(ok(await reader.api.get(`${base}/comments?authors=${commenter.userId}&authors=${admin.userId}`))), byAuthors, 'repeated authors');
    assert.deepEqual(ids(ok(await reader.api.get(`${base}/comments?authors=${commenter.userId},${admin.userId}`))), byAuthors, 'comma-separated authors');
    const viaClient: any = (await clientOf(reader).spaces.listCommentsInSpace(space.id, { authors: [commenter.userId, admin.userId], order: 'asc' })).data;
    assert.deepEqual(ids(viaClient), [...byAuthors].reverse());
    const combined = ok(await reader.api.get(`${base}/comments?status=open&targetPage=${space.guide}&authors=${commenter.userId}`));
    assert.deepEqual(ids(combined), [made[0].id]);
    assert.equal(combined.count, 1);
    assert.deepEqual(ids(ok(await reader.api.get(`${base}/comments?authors=nobody`))), []);

    // Keyset pages, both orders and filtered: every comment once, in order, `count` the total.
    for (const query of ['', 'order=asc&', 'status=open&']) {
      const seen: string[] = [];
      let next: string | undefined;
      let pages = 0;
      do {
        const page = ok(await reader.api.get(`${base}/comments?${query}limit=2${next ? `&page=${encodeURIComponent(next)}` : ''}`));
        assert.ok(page.items.length <= 2);
        seen.push(...ids(page));
        next = page.next?.page;
        pages += 1;
        assert.equal(page.count, query.startsWith('status') ? made.length - resolved.length : made.length);
      } while (next);
      const expected = query === 'order=asc&' ? [...newestFirst].reverse() : query ? newestFirst.filter((id) => !resolved.includes(id)) : newestFirst;
      assert.deepEqual(seen, expected, `pages of ?${query}`);
      assert.equal(pages, Math.ceil(expected.length / 2));
    }
  });

  it('keeps reactions idempotent per user and emoji, aggregated per emoji', async () => {
    const space = await newSpace('Reactions');
    const base = `/v1/spaces/${space.id}`;
    const comment = await post(editor, base, 'react to me');
    const url = `${base}/comments/${comment.id}`;
    const client = clientOf(commenter);
    let current: any = (await client.spaces.updateCommentInSpace(space.id, comment.id, { addedReactions: ['👍', '👍'] })).data;
    assertMatchesOpenApi('Comment', current);
    current = ok(await commenter.api.put(url, { addedReactions: ['👍'] }));
    assert.equal(current.reactions.length, 1);
    assert.equal(current.reactions[0].emoji, '👍');
    assert.equal(current.reactions[0].count, 1, 'adding twice keeps one reaction');
    assert.equal(current.reactions[0].users[0].user.id, commenter.userId);
    current = ok(await admin.api.put(url, { addedReactions: ['👍', '🎉'] }));
    assert.deepEqual(
      current.reactions.map((r: any) => [r.emoji, r.count, r.users.map((u: any) => u.user.id)]),
      [
        ['👍', 2, [commenter.userId, admin.userId]],
        ['🎉', 1, [admin.userId]],
      ],
    );
    assertMatchesOpenApi('Comment', current);
    current = ok(await commenter.api.put(url, { removedReactions: ['🎉', '❤️'] }));
    assert.equal(current.reactions.length, 2, 'removing a reaction one does not have is a no-op');
    current = ok(await commenter.api.put(url, { removedReactions: ['👍'] }));
    assert.deepEqual(
      current.reactions.map((r: any) => [r.emoji, r.count]),
      [
        ['👍', 1],
        ['🎉', 1],
      ],
    );
    assert.equal(current.editedAt, undefined, 'reactions do not edit the comment');
    // One user's distinct reactions are bounded: the 21st is refused and nothing changes.
    const twenty = Array.from({ length: 20 }, (_, i) => `r${i}`);
    ok(await editor.api.put(url, { addedReactions: twenty }));
    const refused = await editor.api.put(url, { addedReactions: ['one-more'] });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(refused.body.error.message, /addedReactions/);
    current = ok(await editor.api.get(url));
    assert.equal(current.reactions.filter((r: any) => r.users.some((u: any) => u.user.id === editor.userId)).length, 20);
    ok(await editor.api.put(url, { removedReactions: twenty }));

    // Concurrent reactions of several users on one comment are all kept (the comment's lock).
    const racers = [commenter, editor, admin, commenter, editor];
    await Promise.all(racers.map((account, i) => account.api.put(url, { addedReactions: ['🚀', `${i}️⃣`] }))).then((all) => all.forEach((r) => ok(r)));
    const rockets = ok(await reader.api.get(url)).reactions.find((r: any) => r.emoji === '🚀');
    assert.deepEqual(rockets.users.map((u: any) => u.user.id).sort(), [commenter.userId, editor.userId, admin.userId].sort());
    assert.equal(ok(await reader.api.get(url)).reactions.length, 2 + 1 + racers.length);
  });

  it('posts, lists, edits, reacts to and deletes replies, keeping replies and repliers true', async () => {
    const space = await newSpace('Replies');
    const base = `/v1/spaces/${space.id}`;
    const comment = await post(admin, base, 'thread');
    const replies = `${base}/comments/${comment.id}/replies`;
    const client = clientOf(commenter);
    const first: any = (await client.spaces.postCommentReplyInSpace(space.id, comment.id, { body: { markdown: 'one' } })).data;
    assertMatchesOpenApi('CommentReply', first);
    assert.equal(first.object, 'comment-reply');
    assert.equal(first.urls.location, `${stack.baseUrl}${replies}/${first.id}`);
    assert.deepEqual(first.permissions, { view: true, edit: true, reply: true, delete: true });
    const second = ok(await editor.api.post(replies, { body: { markdown: 'two' } }));
    const third = ok(await commenter.api.post(replies, { body: { markdown: 'three' } }));
    const threaded = ok(await reader.api.get(`${base}/comments/${comment.id}`));
    assert.equal(threaded.replies, 3);
    assert.deepEqual(
      threaded.repliers.map((r: any) => [r.user.id, r.count, r.updatedAt]),
      [
        [commenter.userId, 2, third.postedAt],
        [editor.userId, 1, second.postedAt],
      ],
    );
    assertMatchesOpenApi('Comment', threaded);

    // Oldest first, keyset pages.
    const page1 = ok(await reader.api.get(`${replies}?limit=2`));
    assert.deepEqual(ids(page1), [first.id, second.id]);
    assert.equal(page1.count, 3);
    const page2 = ok(await reader.api.get(`${replies}?limit=2&page=${encodeURIComponent(page1.next.page)}`));
    assert.deepEqual(ids(page2), [third.id]);
    assert.equal(page2.next, undefined);
    for (const item of page1.items) assertMatchesOpenApi('CommentReply', item);
    const listed: any = (await client.spaces.listCommentRepliesInSpace(space.id, comment.id, { format: 'document' })).data;
    assert.equal(listed.items[0].body.document.object, 'document');
    assertMatchesOpenApi('CommentReply', listed.items[0]);

    const got: any = (await client.spaces.getCommentReplyInSpace(space.id, comment.id, first.id)).data;
    assert.deepEqual(got, first);
    assert.deepEqual(ok(await reader.api.get(`${replies}/${first.id}`)).permissions, { view: true, edit: false, reply: false, delete: false });

    // Edits: only the author changes the body (editedAt set); anyone with the comment role reacts.
    assertError(await editor.api.put(`${replies}/${first.id}`, { body: { markdown: 'hijack' } }), 403);
    assertError(await admin.api.put(`${replies}/${first.id}`, { body: { markdown: 'hijack' } }), 403);
    assertError(await reader.api.put(`${replies}/${first.id}`, { addedReactions: ['👍'] }), 403);
    const edited: any = (await client.spaces.updateCommentReplyInSpace(space.id, comment.id, first.id, { body: { markdown: 'one, edited' } })).data;
    assert.deepEqual(edited.body, { markdown: 'one, edited' });
    assert.ok(edited.editedAt >= first.postedAt);
    ok(await editor.api.put(`${replies}/${first.id}`, { addedReactions: ['👍'] }));
    const reacted = ok(await editor.api.put(`${replies}/${first.id}`, { addedReactions: ['👍'] }));
    assert.deepEqual(
      reacted.reactions.map((r: any) => [r.emoji, r.count]),
      [['👍', 1]],
    );
    assertMatchesOpenApi('CommentReply', reacted);
    assert.equal(reacted.editedAt, edited.editedAt);

    // Deletes: the author or a space admin; others 403; missing 204. Repliers are recounted.
    assertError(await editor.api.delete(`${replies}/${first.id}`), 403);
    assert.equal((await admin.api.delete(`${replies}/${first.id}`)).status, 204);
    assert.equal((await admin.api.delete(`${replies}/${first.id}`)).status, 204, 'deleting twice is fine');
    assertError(await reader.api.get(`${replies}/${first.id}`), 404);
    let now = ok(await reader.api.get(`${base}/comments/${comment.id}`));
    assert.equal(now.replies, 2);
    assert.deepEqual(
      now.repliers.map((r: any) => [r.user.id, r.count]),
      [
        [commenter.userId, 1],
        [editor.userId, 1],
      ],
    );
    assert.equal((await editor.api.delete(`${replies}/${second.id}`)).status, 204, 'authors delete their own');
    now = ok(await reader.api.get(`${base}/comments/${comment.id}`));
    assert.deepEqual([now.replies, now.repliers.map((r: any) => r.user.id)], [1, [commenter.userId]]);
    assert.deepEqual(ids(ok(await reader.api.get(replies))), [third.id]);

    // Deleting the comment deletes its replies.
    assertError(await editor.api.delete(`${base}/comments/${comment.id}`), 403);
    assert.equal((await admin.api.delete(`${base}/comments/${comment.id}`)).status, 204);
    assertError(await reader.api.get(`${replies}/${third.id}`), 404);
    assertError(await reader.api.get(replies), 404);
    assert.deepEqual(ok(await reader.api.get(`${base}/commenters`)).items, [], 'no comment nor reply of anyone is left');
  });

  it('resolves and reopens, keeping Space.comments equal to the open comments through concurrent posts, resolves and deletes', async () => {
    const space = await newSpace('Counters');
    const base = `/v1/spaces/${space.id}`;
    const spaceCount = async () => ok(await reader.api.get(base)).comments as number;

    const authors = [commenter, editor, admin];
    const posted = await Promise.all(Array.from({ length: 12 }, (_, i) => post(authors[i % 3], base, `concurrent ${i}`)));
    assert.equal(new Set(posted.map((c) => c.id)).size, 12);
    assert.deepEqual([await spaceCount(), await openCount(base)], [12, 12]);

    // Resolve four (one of them twice at once), while others react to them.
    const toResolve = posted.slice(0, 4);
    const resolves = [...toResolve, toResolve[0]].map((c) => commenter.api.put(`${base}/comments/${c.id}`, { resolved: true }));
    const reactions = toResolve.map((c) => editor.api.put(`${base}/comments/${c.id}`, { addedReactions: ['👀'] }));
    for (const response of await Promise.all([...resolves, ...reactions])) ok(response);
    assert.deepEqual([await spaceCount(), await openCount(base)], [8, 8]);
    const resolvedOne = ok(await reader.api.get(`${base}/comments/${toResolve[0].id}`));
    assertMatchesOpenApi('Comment', resolvedOne);
    assert.equal(resolvedOne.status, 'resolved');
    assert.equal(resolvedOne.resolvedBy.id, commenter.userId);
    assert.ok(resolvedOne.resolvedAt);
    assert.equal(resolvedOne.reactions[0].count, 1, 'a reaction racing a resolve is kept');
    assert.equal(ok(await reader.api.get(`${base}/comments?status=resolved`)).count, 4);

    // Reopen one (twice: the second changes nothing).
    const reopened = ok(await editor.api.put(`${base}/comments/${toResolve[1].id}`, { resolved: false }));
    assert.equal(reopened.status, 'open');
    assert.equal(reopened.resolvedAt, undefined);
    assert.equal(reopened.resolvedBy, undefined);
    assertMatchesOpenApi('Comment', reopened);
    ok(await editor.api.put(`${base}/comments/${toResolve[1].id}`, { resolved: false }));
    assert.deepEqual([await spaceCount(), await openCount(base)], [9, 9]);

    // Concurrent deletes (two open, one resolved, one twice), posts and a resolve.
    const deletions = [posted[5], posted[6], toResolve[2], posted[5]].map((c) => admin.api.delete(`${base}/comments/${c.id}`));
    const more = [commenter, editor].map((account) => account.api.post(`${base}/comments`, { body: { markdown: 'late' } }));
    const resolveAgain = commenter.api.put(`${base}/comments/${posted[7].id}`, { resolved: true });
    const results = await Promise.all([...deletions, ...more, resolveAgain]);
    results.slice(0, 4).forEach((r) => assert.equal(r.status, 204));
    results.slice(4).forEach((r) => ok(r));
    // 9 open − 2 deleted open + 2 posted − 1 resolved.
    assert.deepEqual([await spaceCount(), await openCount(base)], [8, 8]);
    assert.equal(ok(await reader.api.get(`${base}/comments?status=all`)).count, 12 - 3 + 2);
  });

  it('answers 503 with nothing written when the space stays locked by another writer, so the retry keeps Space.comments true', async () => {
    const space = await newSpace('Busy');
    const base = `/v1/spaces/${space.id}`;
    const toResolve = await post(commenter, base, 'resolve me');
    const toDelete = await post(commenter, base, 'delete me');
    // The service gives up on a busy lock after LOCK_WAIT_MS; the client waits longer than that.
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${commenter.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(90_000),
      });
      return { status: response.status, body: response.status === 204 ? '' : await response.json() };
    };
    const redis = createRedis({ REDIS_URL: stack.env.redisUrl, REDIS_PREFIX: stack.env.redisPrefix }, createLogger('comments-test', 'silent'));
    const lock = `content:lock:space:${space.id}`;
    try {
      assert.equal(await redis.set(lock, 'held by the test', 'PX', 120_000, 'NX'), 'OK');
      const busy = await Promise.all([
        call('POST', `${base}/comments`, { body: { markdown: 'while busy' } }),
        call('PUT', `${base}/comments/${toResolve.id}`, { resolved: true }),
        call('DELETE', `${base}/comments/${toDelete.id}`),
      ]);
      for (const response of busy) assertError(response, 503);
    } finally {
      await redis.del(lock);
      redis.disconnect();
    }
    const listed = ok(await reader.api.get(`${base}/comments`));
    assert.deepEqual(ids(listed), [toDelete.id, toResolve.id], 'the failed post stored nothing, the failed delete deleted nothing');
    assert.equal(listed.items[1].status, 'open', 'the failed resolve changed nothing');
    assert.deepEqual([ok(await reader.api.get(base)).comments, await openCount(base)], [2, 2]);

    // The retries the 503 asks for: the counter follows them.
    await post(commenter, base, 'retried');
    assert.equal(ok(await commenter.api.put(`${base}/comments/${toResolve.id}`, { resolved: true })).status, 'resolved');
    assert.equal((await commenter.api.delete(`${base}/comments/${toDelete.id}`)).status, 204);
    assert.deepEqual([ok(await reader.api.get(base)).comments, await openCount(base)], [1, 1]);
  });

  it('comments on change requests by id or number, counting ChangeRequest.comments apart from the space', async () => {
    const space = await newSpace('Change request comments');
    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Review me' }), 201);
    const written = ok(
      await editor.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
        changes: [{ type: 'insert_page', title: 'Draft page' }],
      }),
    );
    const draftPage = written.changes[0].page.id;
    const crRevision = written.changeRequest.revision;
    const byId = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const byNumber = `/v1/spaces/${space.id}/change-requests/${cr.number}`;

    const client = clientOf(commenter);
    const posted: any = (await client.spaces.postCommentInChangeRequest(space.id, cr.id, { body: { markdown: 'On the draft' }, page: draftPage })).data;
    assertMatchesOpenApi('Comment', posted);
    assert.deepEqual(posted.target, { changeRequest: cr.id, page: { id: draftPage }, space: space.id, revision: crRevision });
    assert.equal(posted.urls.location, `${stack.baseUrl}${byId}/comments/${posted.id}`);
    assertError(await commenter.api.post(`/v1/spaces/${space.id}/comments`, { body: { markdown: 'x' }, page: draftPage }), 400, 'page');

    const second = await post(editor, byNumber, 'by number');
    assert.deepEqual(ids(ok(await reader.api.get(`${byNumber}/comments`))), [second.id, posted.id]);
    assert.deepEqual(ok(await reader.api.get(`${byId}/comments/${second.id}`)).id, second.id);
    assert.deepEqual(ids(ok(await reader.api.get(`/v1/spaces/${space.id}/comments`))), [], 'change request comments are not the space’s');
    assertError(await reader.api.get(`/v1/spaces/${space.id}/comments/${posted.id}`), 404);
    assert.equal(ok(await reader.api.get(byId)).comments, 2);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}`)).comments, 0);

    // Replies, with get/put/delete of one reply (OpenAPI has them under change requests too).
    const reply: any = (await client.spaces.postCommentReplyInChangeRequest(space.id, cr.id, posted.id, { body: { markdown: 'reply' } })).data;
    assertMatchesOpenApi('CommentReply', reply);
    assert.equal(reply.urls.location, `${stack.baseUrl}${byId}/comments/${posted.id}/replies/${reply.id}`);
    assert.deepEqual((await client.spaces.getCommentReplyInChangeRequest(space.id, cr.id, posted.id, reply.id)).data, reply);
    const editedReply: any = (
      await client.spaces.updateCommentReplyInChangeRequest(space.id, cr.id, posted.id, reply.id, { body: { markdown: 'reply 2' }, addedReactions: ['✅'] })
    ).data;
    assert.deepEqual([editedReply.body.markdown, editedReply.reactions[0].emoji], ['reply 2', '✅']);
    assert.deepEqual(ids((await client.spaces.listCommentRepliesInChangeRequest(space.id, cr.id, posted.id)).data as any), [reply.id]);
    assert.equal(ok(await reader.api.get(`${byNumber}/comments/${posted.id}`)).replies, 1);

    // Resolve, reopen, delete: the change request's counter follows, the space's does not move.
    const resolved: any = (await client.spaces.updateCommentInChangeRequest(space.id, cr.id, posted.id, { resolved: true })).data;
    assert.equal(resolved.status, 'resolved');
    assert.equal(ok(await reader.api.get(byId)).comments, 1);
    ok(await commenter.api.put(`${byNumber}/comments/${posted.id}`, { resolved: false }));
    assert.equal(ok(await reader.api.get(byId)).comments, 2);
    await Promise.all(Array.from({ length: 5 }, (_, i) => post([commenter, editor][i % 2], byId, `burst ${i}`)));
    assert.deepEqual([ok(await reader.api.get(byId)).comments, await openCount(byId)], [7, 7]);
    assert.equal((await client.spaces.deleteCommentReplyInChangeRequest(space.id, cr.id, posted.id, reply.id)).status, 204);
    assert.equal((await client.spaces.deleteCommentInChangeRequest(space.id, cr.id, posted.id)).status, 204);
    assert.deepEqual([ok(await reader.api.get(byId)).comments, await openCount(byId)], [6, 6]);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${space.id}`)).comments, 0);

    // Commenters of the change request only.
    const spaceComment = await post(admin, `/v1/spaces/${space.id}`, 'on main');
    const commenters: any = (await client.spaces.listCommentersInChangeRequest(space.id, cr.id)).data;
    for (const member of commenters.items) assertMatchesOpenApi('OrganizationMember', member);
    assert.deepEqual(commenters.items.map((m: any) => m.id).sort(), [commenter.userId, editor.userId].sort());
    assert.deepEqual(
      ok(await reader.api.get(`/v1/spaces/${space.id}/commenters`)).items.map((m: any) => m.id),
      [admin.userId],
    );
    assertError(await reader.api.get(`${byId}/comments/${spaceComment.id}`), 404, 'Comment');

    // A merged change request can still be read and commented on.
    ok(await admin.api.post(`${byId}/merge`));
    assert.equal(ok(await reader.api.get(byId)).status, 'merged');
    const late = await post(commenter, byId, 'after the merge');
    assert.equal(late.target.revision, ok(await reader.api.get(byId)).revision);
    assert.equal(ok(await reader.api.get(byId)).comments, 7);
    assert.ok(ids(ok(await reader.api.get(`${byId}/comments`))).includes(late.id));
  });

  it('lets the comment role post, the author edit, authors and admins delete; read gets 403, guests and outsiders 404', async () => {
    const space = await newSpace('Permissions');
    const base = `/v1/spaces/${space.id}`;
    const comment = await post(commenter, base, 'mine');
    const url = `${base}/comments/${comment.id}`;

    assertError(await reader.api.post(`${base}/comments`, { body: { markdown: 'no' } }), 403, 'comment');
    assertError(await reader.api.post(`${url}/replies`, { body: { markdown: 'no' } }), 403, 'comment');
    assertError(await reader.api.put(url, { resolved: true }), 403, 'comment');
    assertError(await reader.api.put(url, { addedReactions: ['👍'] }), 403, 'comment');
    assertError(await reader.api.delete(url), 403);
    assert.equal(ok(await reader.api.get(url)).id, comment.id, 'read sees comments');

    // The body is the author's alone (admins included); editing sets editedAt.
    assertError(await editor.api.put(url, { body: { markdown: 'edited by someone else' } }), 403, 'author');
    assertError(await admin.api.put(url, { body: { markdown: 'edited by an admin' } }), 403, 'author');
    const edited = ok(await commenter.api.put(url, { body: { markdown: 'mine, edited' } }));
    assert.equal(edited.body.markdown, 'mine, edited');
    assert.ok(edited.editedAt >= edited.postedAt);
    assertMatchesOpenApi('Comment', edited);
    // Others with the comment role resolve and reopen.
    assert.equal(ok(await editor.api.put(url, { resolved: true })).status, 'resolved');
    assert.equal(ok(await editor.api.put(url, { resolved: false })).status, 'open');

    // Guests without access and other organizations see nothing (404), deleting is a no-op.
    for (const stranger of [guest, outsider]) {
      assertError(await stranger.api.get(`${base}/comments`), 404);
      assertError(await stranger.api.get(url), 404);
      assertError(await stranger.api.post(`${base}/comments`, { body: { markdown: 'x' } }), 404);
      assertError(await stranger.api.put(url, { resolved: true }), 404);
      assertError(await stranger.api.get(`${base}/commenters`), 404);
      assert.equal((await stranger.api.delete(url)).status, 204);
    }
    // A guest granted the comment role on the space may comment.
    assert.equal((await admin.api.post(`${base}/permissions`, { role: 'comment', users: [guest.userId] })).status, 204);
    const byGuest = await post(guest, base, 'invited');
    assert.deepEqual(byGuest.permissions, { view: true, edit: true, reply: true, delete: true });

    // Authors delete their own; a commenter cannot delete someone else's; admins delete any.
    const byEditor = await post(editor, base, 'editor');
    assertError(await commenter.api.delete(`${base}/comments/${byEditor.id}`), 403);
    assert.equal((await editor.api.delete(`${base}/comments/${byEditor.id}`)).status, 204);
    assert.equal((await admin.api.delete(url)).status, 204);
    assertError(await reader.api.get(url), 404);
    assert.deepEqual(ids(ok(await reader.api.get(`${base}/comments`))), [byGuest.id]);

    // A deleted space has no comments to show (404), though its counter survives a restore.
    assert.equal((await admin.api.delete(base)).status, 204);
    assertError(await admin.api.get(`${base}/comments`), 404);
    assertError(await admin.api.post(`${base}/comments`, { body: { markdown: 'x' } }), 404);
    ok(await admin.api.post(`${base}/restore`));
    assert.equal(ok(await reader.api.get(base)).comments, 1);
  });

  it('answers 404 for unknown spaces, change requests, comments and replies, and 204 when deleting them', async () => {
    const space = await newSpace('Missing');
    const other = await newSpace('Other');
    const base = `/v1/spaces/${space.id}`;
    const comment = await post(commenter, base, 'here');
    const reply = ok(await commenter.api.post(`${base}/comments/${comment.id}/replies`, { body: { markdown: 'r' } }));
    const elsewhere = await post(commenter, `/v1/spaces/${other.id}`, 'elsewhere');
    // A change request's comment is not reachable through another change request (by id or number) nor the space.
    const [crA, crB] = [
      ok(await editor.api.post(`${base}/change-requests`, { subject: 'A' }), 201),
      ok(await editor.api.post(`${base}/change-requests`, { subject: 'B' }), 201),
    ];
    const onA = await post(commenter, `${base}/change-requests/${crA.id}`, 'on A');
    const replyOnA = ok(await commenter.api.post(`${base}/change-requests/${crA.id}/comments/${onA.id}/replies`, { body: { markdown: 'r' } }));
    const missing = [
      [`${base}/change-requests/${crB.id}/comments/${onA.id}`, 'Comment'],
      [`${base}/change-requests/${crB.number}/comments/${onA.id}/replies/${replyOnA.id}`, 'Comment'],
      [`${base}/comments/${onA.id}`, 'Comment'],
      ['/v1/spaces/no-such-space/comments/x', 'Space'],
      [`${base}/change-requests/no-such-cr/comments/${comment.id}`, 'Change request'],
      [`${base}/change-requests/999/comments/${comment.id}`, 'Change request'],
      [`${base}/comments/no-such-comment`, 'Comment'],
      [`${base}/comments/${elsewhere.id}`, 'Comment'],
      [`${base}/comments/${comment.id}/replies/no-such-reply`, 'Comment reply'],
      [`${base}/comments/no-such-comment/replies/${reply.id}`, 'Comment'],
      [`/v1/spaces/${other.id}/comments/${elsewhere.id}/replies/${reply.id}`, 'Comment reply'],
    ];
    for (const [path, what] of missing) {
      assertError(await commenter.api.get(path), 404, what);
      assertError(await commenter.api.put(path, { addedReactions: ['👍'] }), 404, what);
      assert.equal((await admin.api.delete(path)).status, 204, `DELETE ${path}`);
    }
    for (const path of ['/v1/spaces/no-such-space/comments', `${base}/change-requests/no-such-cr/comments`, `${base}/comments/no-such-comment/replies`]) {
      assertError(await commenter.api.get(path), 404);
      assertError(await commenter.api.post(path, { body: { markdown: 'x' } }), 404);
    }
    assertError(await commenter.api.get('/v1/spaces/no-such-space/commenters'), 404);
    assertError(await commenter.api.get(`${base}/change-requests/no-such-cr/commenters`), 404);
    // Nothing above touched what exists.
    assert.equal(ok(await reader.api.get(`${base}/comments/${comment.id}`)).replies, 1);
    assert.equal(ok(await reader.api.get(`/v1/spaces/${other.id}/comments/${elsewhere.id}`)).id, elsewhere.id);
    const stillOnA = ok(await reader.api.get(`${base}/change-requests/${crA.id}/comments/${onA.id}`));
    assert.deepEqual([stillOnA.reactions, stillOnA.replies], [[], 1]);
    assert.deepEqual(ok(await reader.api.get(`${base}/change-requests/${crA.id}/comments/${onA.id}/replies/${replyOnA.id}`)).reactions, []);
    assert.equal(ok(await reader.api.get(`${base}/change-requests/${crA.id}`)).comments, 1);
  });

  it('refuses replies to a change request comment as on the space: read 403, strangers and unknown ids 404, bad input 400', async () => {
    const space = await newSpace('Change request replies refused');
    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Replies' }), 201);
    const byId = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const comment = await post(commenter, byId, 'thread on the change request');
    const replies = `${byId}/comments/${comment.id}/replies`;
    const reply = ok(await commenter.api.post(replies, { body: { markdown: 'first' } }));

    assertError(await reader.api.post(replies, { body: { markdown: 'no' } }), 403, 'comment');
    for (const stranger of [guest, outsider]) {
      assertError(await stranger.api.post(replies, { body: { markdown: 'no' } }), 404);
      assertError(await stranger.api.get(replies), 404);
    }
    for (const [path, what] of [
      [`${byId}/comments/no-such-comment/replies`, 'Comment'],
      [`/v1/spaces/${space.id}/change-requests/no-such-cr/comments/${comment.id}/replies`, 'Change request'],
      // The same comment is not reachable outside its change request.
      [`/v1/spaces/${space.id}/comments/${comment.id}/replies`, 'Comment'],
    ]) {
      assertError(await commenter.api.post(path, { body: { markdown: 'no' } }), 404, what);
      assertError(await reader.api.get(path), 404, what);
    }
    assertError(await commenter.api.post(replies, {}), 400, 'body');
    assertError(await commenter.api.post(replies, { body: { markdown: ' ' } }), 400, 'body.markdown');
    assertError(await commenter.api.post(replies, { body: { markdown: 'x' }, resolved: true }), 400, 'resolved');
    assertError(await reader.api.get(`${replies}?limit=0`), 400, 'limit');
    assertError(await reader.api.get(`${replies}?format=html`), 400, 'format');

    const listed = ok(await reader.api.get(replies));
    assert.deepEqual(ids(listed), [reply.id], 'nothing refused was stored');
    assert.equal(listed.count, 1);
    for (const item of listed.items) assertMatchesOpenApi('CommentReply', item);
  });

  it('refuses deleting change request comments and replies to read and to other authors (403), deletes nothing for strangers (204), 400 on bad ids', async () => {
    const space = await newSpace('Change request deletes refused');
    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Deletes' }), 201);
    const byId = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const comment = await post(commenter, byId, 'keep me');
    const url = `${byId}/comments/${comment.id}`;
    const reply = ok(await commenter.api.post(`${url}/replies`, { body: { markdown: 'keep me too' } }));
    const replyUrl = `${url}/replies/${reply.id}`;

    for (const path of [url, replyUrl]) {
      assertError(await reader.api.delete(path), 403);
      // Not the author and no space admin.
      assertError(await editor.api.delete(path), 403, 'author');
      // For those who cannot see the space there is nothing to delete: 204, and nothing goes.
      for (const stranger of [guest, outsider]) assert.equal((await stranger.api.delete(path)).status, 204, `DELETE ${path}`);
    }
    const long = 'x'.repeat(65);
    assertError(await admin.api.delete(`${byId}/comments/${long}`), 400, 'commentId');
    assertError(await admin.api.delete(`${url}/replies/${long}`), 400, 'commentReplyId');
    assertError(await admin.api.delete(`/v1/spaces/${space.id}/change-requests/${long}/comments/${comment.id}`), 400, 'changeRequestId');

    const kept = ok(await reader.api.get(url));
    assertMatchesOpenApi('Comment', kept);
    assert.deepEqual([kept.id, kept.replies], [comment.id, 1]);
    assert.equal(ok(await reader.api.get(replyUrl)).id, reply.id);
    assert.equal(ok(await reader.api.get(byId)).comments, 1, 'the open-comment counter did not move');
  });

  it('lists commenters as organization Members: distinct authors of comments and replies who are still members', async () => {
    const space = await newSpace('Commenters');
    const base = `/v1/spaces/${space.id}`;
    const leaver = await stack.account(['add-member', '--org', orgId, '--email', 'leo@acme.test', '--role', 'comment']);
    const first = await post(commenter, base, 'a');
    await post(commenter, base, 'b');
    await post(leaver, base, 'c');
    ok(await editor.api.post(`${base}/comments/${first.id}/replies`, { body: { markdown: 'only a reply' } }));
    ok(await commenter.api.post(`${base}/comments/${first.id}/replies`, { body: { markdown: 'own reply' } }));

    const everyone = [commenter.userId, editor.userId, leaver.userId].sort();
    const listed: any = (await clientOf(reader).spaces.listCommentersInSpace(space.id)).data;
    assert.deepEqual(
      listed.items.map((m: any) => m.id),
      everyone,
    );
    assert.equal(listed.count, 3);
    for (const member of listed.items) assertMatchesOpenApi('OrganizationMember', member);
    const asIdentity = ok(await admin.api.get(`/v1/orgs/${orgId}/members/${commenter.userId}`));
    assert.deepEqual(
      listed.items.find((m: any) => m.id === commenter.userId),
      asIdentity,
      'exactly the Member identity presents',
    );

    const seen: string[] = [];
    let next: string | undefined;
    do {
      const page = ok(await reader.api.get(`${base}/commenters?limit=1${next ? `&page=${encodeURIComponent(next)}` : ''}`));
      assert.equal(page.items.length, 1);
      assert.equal(page.count, 3);
      seen.push(page.items[0].id);
      next = page.next?.page;
    } while (next);
    assert.deepEqual(seen, everyone);

    assert.equal((await admin.api.delete(`/v1/orgs/${orgId}/members/${leaver.userId}`)).status, 204);
    const after = ok(await reader.api.get(`${base}/commenters`));
    assert.deepEqual(
      after.items.map((m: any) => m.id),
      [commenter.userId, editor.userId].sort(),
      'former members are left out',
    );
    assert.equal(after.count, 2);
  });

  it("embeds in a change request's commenters the very Member identity answers to the same caller (BatchGetMembers end to end)", async () => {
    // Counts that are not all zero, so they are compared too: a team of the commenter's, a site.
    ok(await admin.api.put(`/v1/orgs/${orgId}/teams`, { title: 'Commenters team', members: [commenter.userId] }), 201);
    ok(await admin.api.post(`/v1/orgs/${orgId}/sites`, { title: 'Commenters site' }), 201);
    const space = await newSpace('Commenters of a change request');
    const cr = ok(await editor.api.post(`/v1/spaces/${space.id}/change-requests`, { subject: 'Discuss' }), 201);
    const byId = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const thread = await post(commenter, byId, 'a question');
    ok(await editor.api.post(`${byId}/comments/${thread.id}/replies`, { body: { markdown: 'an answer' } }));
    await post(admin, byId, 'a decision');

    for (const caller of [reader, admin]) {
      const listed = ok(await caller.api.get(`${byId}/commenters`));
      assert.deepEqual(listed.items.map((member: any) => member.id).sort(), [admin.userId, commenter.userId, editor.userId].sort());
      assert.equal(listed.count, 3);
      for (const member of listed.items) {
        assertMatchesOpenApi('OrganizationMember', member);
        const fromIdentity = ok(await caller.api.get(`/v1/orgs/${orgId}/members/${member.id}`));
        assert.deepEqual(member, fromIdentity, `the commenter ${member.id} is the Member GET /v1/orgs/{organizationId}/members/{userId} answers`);
      }
      const own = listed.items.find((member: any) => member.id === commenter.userId);
      assert.deepEqual([own.role, own.teams, own.sites > 0, own.spaces > 0], ['comment', 1, true, true], 'counts made by content and publishing');
    }
  });

  it('shows a guest who may comment on a space no e-mail of anyone: commenters, comment authors, change request authors, permissions', async () => {
    const space = await newSpace('Guest can comment');
    const base = `/v1/spaces/${space.id}`;
    ok(await admin.api.post(`${base}/permissions`, { role: 'admin', users: [guest.userId] }), 204);
    await post(commenter, base, 'from a member');
    const cr = ok(await editor.api.post(`${base}/change-requests`, { subject: 'by a member' }), 201);

    const commenters = ok(await guest.api.get(`${base}/commenters`));
    assert.deepEqual(ids(commenters), [commenter.userId]);
    assert.equal(commenters.items[0].user.email, undefined, 'the Member without its e-mail');
    const comments = ok(await guest.api.get(`${base}/comments`));
    assert.equal(comments.items[0].postedBy.email, undefined);
    const changeRequest = ok(await guest.api.get(`${base}/change-requests/${cr.id}`));
    assert.equal(changeRequest.createdBy.email, undefined);
    const granted = ok(await guest.api.get(`${base}/permissions/users`));
    assert.ok(granted.items.length > 0);
    for (const item of granted.items) assert.equal(item.user.email, undefined);

    // A member with a role still sees them, as identity shows them.
    assert.equal(ok(await reader.api.get(`${base}/commenters`)).items[0].user.email, 'comment@comments.test');
    assert.equal(ok(await reader.api.get(`${base}/comments`)).items[0].postedBy.email, 'comment@comments.test');
  });

  it('removes the comments and replies of a purged space', async () => {
    const space = await newSpace('Purged');
    const base = `/v1/spaces/${space.id}`;
    const comment = await post(commenter, base, 'soon gone');
    ok(await editor.api.post(`${base}/comments/${comment.id}/replies`, { body: { markdown: 'me too' } }));
    const cr = ok(await editor.api.post(`${base}/change-requests`, { subject: 'gone too' }), 201);
    await post(commenter, `${base}/change-requests/${cr.id}`, 'on the change request');
    assert.equal((await admin.api.delete(base)).status, 204);

    const mongo = new MongoClient(stack.env.mongodbUri);
    try {
      const db = mongo.db(`${stack.env.dbPrefix}content`);
      const left = async () =>
        Promise.all([
          db.collection('spaces').countDocuments({ _id: space.id as never }),
          db.collection('comments').countDocuments({ spaceId: space.id }),
          db.collection('comment_replies').countDocuments({ spaceId: space.id }),
        ]);
      assert.deepEqual((await left()).slice(1), [2, 1], 'kept while in the trash');
      for (let i = 0; i < 150 && (await left())[0] > 0; i++) await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(await left(), [0, 0, 0]);
    } finally {
      await mongo.close();
    }
  });
});
