import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { expectOk, sharedTestStack, type ApiClient, type ApiResponse, type TestAccount, type TestOrganization, type TestStack } from '@quire/testkit';

/*
 * No acknowledged write is lost (issue 12, item 1). For every kind of resource: create one,
 * send several updates of DIFFERENT fields (or different entries) at once, then read it back
 * and check that every change is there; concurrent counters must end exact. A race does not
 * lose a write every time, so every case runs several rounds, each on a fresh resource, and
 * reports every change lost in any of them. A 409 or 503 ("busy, retry") is retried until it
 * succeeds; any other failure (a 500 above all) fails the case at once.
 */

const ROUNDS = 3;
/** Members besides the role accounts: reactors, team members, reviewers. */
const EXTRA_MEMBERS = 20;
const MAX_ATTEMPTS = 30;
const EMOJIS = ['😀', '🎉', '❤️', '🚀', '👀', '✅', '🔥', '💡', '🙏', '🤔', '👏', '💯'];

/** A throwaway self-signed certificate (EC P-256): SAML providers only need one that parses. */
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBljCCATugAwIBAgIUCYXlox+cHYtEjN8a7UxDlslHYEwwCgYIKoZIzj0EAwIw
HzEdMBsGA1UEAwwUaWRwLmNvbmN1cnJlbmN5LnRlc3QwIBcNMjYxMTIzMjAyNzEw
WhgPMjEyNjEwMzAyMDI3MTBaMB8xHTAbBgNVBAMMFGlkcC5jb25jdXJyZW5jeS50
ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEuMSyG2bLU07qSDkdcLkW5i+l
ETniric/S1V+YX7LV5VKqIDAWnmesoO+0EqMqFRb5bS3tsQB/14pD2vYOtE8GqNT
MFEwHQYDVR0OBBYEFGS2azrlig0BdrjGk46mzDrk77KyMB8GA1UdIwQYMBaAFGS2
azrlig0BdrjGk46mzDrk77KyMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwID
SQAwRgIhAJYp5+r6q+vrPr1JdZByTCr/E38aQr+4xwrdVP8VSn88AiEA/4thfLmP
04Havac8yCYMBpANNCaiK25hojPJmf1v8mI=
-----END CERTIFICATE-----`;

/** Requests to send at once, by what they change. */
type Writes = Record<string, () => Promise<ApiResponse>>;
/** What must hold afterwards: name → [expected value, where it is in the read-back]. */
type Expected = Record<string, [unknown, (state: any) => unknown]>;

/** A value in a failure message, cut short (a certificate would fill the screen). */
const show = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};
const times = <T>(count: number, entry: (i: number) => [string, T]): Record<string, T> => Object.fromEntries(Array.from({ length: count }, (_, i) => entry(i)));

/** Sends until it succeeds: 409/503 mean "busy, retry"; anything else above 299 fails the case. */
async function succeed(name: string, send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send();
    if (answer.status < 300) return answer;
    const retry = (answer.status === 409 || answer.status === 503) && attempt < MAX_ATTEMPTS;
    assert.ok(retry, `${name}: ${answer.status} after ${attempt} attempt(s): ${show(answer.body)}`);
    await sleep(20 * attempt);
  }
}

/** Sends every write at once (each until it succeeds), reads back once, and lists what is not there. */
async function concurrently(writes: Writes, readBack: () => Promise<any>, expected: Expected): Promise<string[]> {
  await Promise.all(Object.entries(writes).map(([name, send]) => succeed(name, send)));
  const state = await readBack();
  return Object.entries(expected).flatMap(([name, [value, read]]) => {
    const stored = read(state);
    return isDeepStrictEqual(stored, value) ? [] : [`${name}: expected ${show(value)}, found ${show(stored)}`];
  });
}

/** One write per field (a body with that field alone) and the check that it stayed; `readers` find a field shown elsewhere. */
function eachField(
  send: (body: Record<string, unknown>) => Promise<ApiResponse>,
  fields: Record<string, unknown>,
  at: (state: any) => any = (state) => state,
  readers: Record<string, (resource: any) => unknown> = {},
): { writes: Writes; expected: Expected } {
  const writes: Writes = {};
  const expected: Expected = {};
  for (const [name, value] of Object.entries(fields)) {
    writes[name] = () => send({ [name]: value });
    expected[name] = [value, (state) => (readers[name] ?? ((resource) => resource?.[name]))(at(state))];
  }
  return { writes, expected };
}

/** Runs `count` rounds; fails naming every change lost in any round. */
async function rounds(round: (r: number) => Promise<string[]>, count = ROUNDS): Promise<void> {
  const lost: string[] = [];
  for (let r = 0; r < count; r++) lost.push(...(await round(r)).map((line) => `round ${r + 1}: ${line}`));
  if (lost.length > 0) assert.fail(`${lost.length} change(s) lost:\n  ${lost.join('\n  ')}`);
}

/** Reactions as shown (emoji → count and users) and as expected from emoji → user ids. */
const reactionsOf = (item: any) =>
  Object.fromEntries(item.reactions.map((r: any) => [r.emoji, { count: r.count, users: r.users.map((u: any) => u.user.id).sort() }]));
const reactionsFrom = (byEmoji: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(byEmoji).map(([emoji, ids]) => [emoji, { count: ids.length, users: [...ids].sort() }]));
/** Each reactor adds 👍 and an emoji of their own, in one request; the reactions the item must then show. */
function reactingAtOnce(target: string, reactors: TestAccount[]): { writes: Writes; reactions: unknown } {
  const writes = times(reactors.length, (i) => [`reaction of user ${i}`, () => reactors[i].api.put(target, { addedReactions: ['👍', EMOJIS[i]] })]);
  const own = Object.fromEntries(reactors.map((user, i) => [EMOJIS[i], [user.userId]]));
  return { writes, reactions: reactionsFrom({ '👍': reactors.map((user) => user.userId), ...own }) };
}
const repliersOf = (comment: any) => Object.fromEntries(comment.repliers.map((r: any) => [r.user.id, r.count]));
const teamRolesOf = (members: any) => Object.fromEntries(members.items.map((m: any) => [m.organization.id, m.team.role]));
const doc = (text: string) => ({
  object: 'document',
  data: { schemaVersion: 1 },
  nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text }] }] }],
});

describe('concurrency through the gateway (one stack, one organization)', () => {
  let stack: TestStack;
  let org: TestOrganization<'create' | 'review' | 'comment'>;
  let admin: ApiClient;
  /** Members with the comment role besides the role accounts: reactors, team members, reviewers. */
  const users: TestAccount[] = [];
  const suffix = Math.random().toString(36).slice(2, 8);
  const o = (path = '') => `/v1/orgs/${org.id}${path}`;
  const read = async (path: string) => expectOk(await admin.get(path));
  const item = async (list: string, id: string) => (await read(`${list}?limit=1000`)).items.find((entry: any) => entry.id === id);
  const created = async (path: string, body: unknown, method = 'POST') =>
    (await succeed(`${method} ${path}`, () => admin.request(method, path, { body }))).body;
  const newTeam = async (title: string, members?: string[]) => (await created(o('/teams'), { title, members }, 'PUT')).id as string;
  const newSpaces = (count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => created(o('/spaces'), { title: `Space ${i}` }).then((s) => s.id as string)));
  const newSite = async (spaces: string[] = []) => (await created(o('/sites'), { title: 'Busy site', spaces })).id as string;
  const newComment = async (owner: string) => `${owner}/comments/${(await created(`${owner}/comments`, { body: { markdown: 'Comment' } })).id}`;
  const newReply = async (comment: string) => `${comment}/replies/${(await created(`${comment}/replies`, { body: { markdown: 'Reply' } })).id}`;

  beforeAll(async () => {
    stack = await sharedTestStack({ RATE_LIMIT_POINTS: '1000000' });
    org = await stack.organization({ domain: 'concurrency.test', roles: ['create', 'review', 'comment'] });
    admin = org.admin.api;
    // A few CLI runs at a time: each is a process of its own.
    for (let i = 0; i < EXTRA_MEMBERS; i += 5) {
      const batch = Array.from({ length: Math.min(5, EXTRA_MEMBERS - i) }, (_, j) =>
        stack.account(['add-member', '--org', org.id, '--email', `member${i + j}@concurrency.test`, '--role', 'comment']),
      );
      users.push(...(await Promise.all(batch)));
    }
  });

  afterAll(async () => {
    await stack?.stop();
  });

  describe('updates of different fields of one resource at once keep every change', () => {
    it('organization: concurrent PATCH of title, emailDomains, hostname, defaultRole, defaultContent, logo, sso, ai, inviteLinks, mergeRules keeps every change', async () => {
      // The merges below need no review: the rules this case sets are dropped whatever happens.
      try {
        await rounds(async (r) => {
          const now = await read(o());
          const site = await newSite();
          const fields = {
            title: `Concurrent organization ${r}`,
            emailDomains: [`r${r}.concurrency.test`],
            hostname: `concurrency-${r}-${suffix}`,
            defaultRole: now.defaultRole === 'read' ? 'comment' : 'read',
            defaultContent: { type: 'site', site },
            logo: `https://logo.example.com/${r}.png`,
            sso: !now.sso,
            ai: !now.ai,
            inviteLinks: !now.inviteLinks,
            mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [users[r].userId] }] },
          };
          const { writes, expected } = eachField((body) => admin.patch(o(), body), fields, undefined, { logo: (organization) => organization.urls.logo });
          return concurrently(writes, () => read(o()), expected);
        });
      } finally {
        expectOk(await admin.patch(o(), { mergeRules: { type: 'none' } }));
      }
    });

    it('member: concurrent role change, SSO, ping and team additions keep every change', async () => {
      const teams: string[] = [];
      for (let i = 0; i < 3; i++) teams.push(await newTeam(`Member team ${i}`));
      await rounds(async (r) => {
        const member = users[r];
        const path = o(`/members/${member.userId}`);
        const start = Date.now();
        const writes: Writes = {
          role: () => admin.patch(path, { role: 'review' }),
          sso: () => admin.post(`${path}/sso`),
          lastSeenAt: () => member.api.post(o('/ping')),
          ...times(teams.length, (i) => [`team ${i}`, () => admin.put(o(`/teams/${teams[i]}/members/${member.userId}`), { role: 'member' })]),
        };
        return concurrently(writes, () => read(path), {
          role: ['review', (m) => m.role],
          sso: [true, (m) => m.sso],
          'lastSeenAt (set by the ping)': [true, (m) => Date.parse(m.lastSeenAt) >= start - 1000],
          teams: [teams.length, (m) => m.teams],
        });
        // Three writers on one document lose less often than ten: more rounds (each is cheap).
      }, 10);
    });

    it('team: concurrent PATCH of title with member additions, removals and role changes keeps every change', async () => {
      await rounds(async (r) => {
        const ids = users.slice(3, 10).map((u) => u.userId);
        const path = o(`/teams/${await newTeam(`Team ${r}`, ids.slice(0, 4))}`);
        const writes: Writes = {
          title: () => admin.patch(path, { title: `Renamed team ${r}` }),
          'add member 4': () => admin.put(`${path}/members`, { add: [ids[4]] }),
          'add member 5': () => admin.put(`${path}/members`, { add: [ids[5]] }),
          'add member 6 as owner': () => admin.put(`${path}/members/${ids[6]}`, { role: 'owner' }),
          'member 0 becomes owner': () => admin.put(`${path}/members/${ids[0]}`, { role: 'owner' }),
          'member 1 becomes owner (memberships)': () => admin.put(`${path}/members`, { memberships: { [ids[1]]: { role: 'owner' } } }),
          'remove member 2': () => admin.delete(`${path}/members/${ids[2]}`),
        };
        const roles = { [ids[0]]: 'owner', [ids[1]]: 'owner', [ids[3]]: 'member', [ids[4]]: 'member', [ids[5]]: 'member', [ids[6]]: 'owner' };
        return concurrently(writes, async () => ({ team: await read(path), members: await read(`${path}/members?limit=1000`) }), {
          title: [`Renamed team ${r}`, (s) => s.team.title],
          'members and roles': [roles, (s) => teamRolesOf(s.members)],
          'Team.members': [6, (s) => s.team.members],
        });
      });
    });

    it('team members: 20 added at once count 20; then different role changes and removals at once all stay', async () => {
      await rounds(async (r) => {
        const path = o(`/teams/${await newTeam(`Crowd ${r}`)}`);
        const readBack = async () => ({ team: await read(path), members: await read(`${path}/members?limit=1000`) });
        // Half join one by one, half through the bulk form: two code paths, one team.
        const lost = await concurrently(
          times(users.length, (i) => [
            `add ${i}`,
            () => (i % 2 ? admin.put(`${path}/members/${users[i].userId}`, { role: 'member' }) : admin.put(`${path}/members`, { add: [users[i].userId] })),
          ]),
          readBack,
          { 'Team.members after 20 additions': [users.length, (s) => s.team.members], 'members listed': [users.length, (s) => s.members.count] },
        );
        const expected: Record<string, string> = {};
        const writes: Writes = {};
        users.forEach((user, i) => {
          if (i % 4 === 3) writes[`remove ${i}`] = () => admin.delete(`${path}/members/${user.userId}`);
          else if (i % 4 === 0) writes[`owner ${i}`] = () => admin.put(`${path}/members/${user.userId}`, { role: 'owner' });
          else if (i % 4 === 1) writes[`owner ${i} (memberships)`] = () => admin.put(`${path}/members`, { memberships: { [user.userId]: { role: 'owner' } } });
          if (i % 4 !== 3) expected[user.userId] = i % 4 === 2 ? 'member' : 'owner';
        });
        lost.push(
          ...(await concurrently(writes, readBack, {
            'roles after the changes': [expected, (s) => teamRolesOf(s.members)],
            'Team.members after 5 removals': [15, (s) => s.team.members],
          })),
        );
        return lost;
      });
    });

    it('SAML provider: concurrent PATCH of label, entityID, certificate, ssoURL, defaultTeam, defaultRole keeps every change', async () => {
      const team = await newTeam('SSO team');
      await rounds(async (r) => {
        const path = o(`/saml/${(await created(o('/saml'), { label: `IdP ${r}` })).id}`);
        const fields = {
          label: `Renamed IdP ${r}`,
          entityID: `https://idp${r}.example.com/metadata`,
          certificate: CERTIFICATE,
          ssoURL: `https://idp${r}.example.com/sso`,
          defaultTeam: team,
          defaultRole: 'edit',
        };
        const { writes, expected } = eachField((body) => admin.patch(path, body), fields, undefined, { defaultTeam: (p) => p.defaultTeam?.id });
        return concurrently(writes, () => read(path), expected);
      });
    });

    it('space: concurrent PATCH of title, emoji, editMode, defaultLevel, language, mergeRules, visibility with a move, comments and a change request keeps every change and count', async () => {
      const collection = (await created(o('/collections'), { title: 'Parent' })).id;
      await rounds(async (r) => {
        const [space] = await newSpaces(1);
        const path = `/v1/spaces/${space}`;
        const fields = {
          title: `Renamed ${r}`,
          emoji: EMOJIS[r],
          editMode: 'locked',
          defaultLevel: 'comment',
          language: 'fr',
          mergeRules: { type: 'none' },
          visibility: 'unlisted',
        };
        const { writes, expected } = eachField((body) => admin.patch(path, body), fields);
        const more: Writes = {
          parent: () => admin.post(`${path}/move`, { parent: collection }),
          ...times(3, (i) => [`comment ${i}`, () => admin.post(`${path}/comments`, { body: { markdown: `Comment ${i}` } })]),
          'change request': () => admin.post(`${path}/change-requests`, { subject: 'Concurrent' }),
        };
        return concurrently({ ...writes, ...more }, () => read(path), {
          ...expected,
          parent: [collection, (s) => s.parent],
          'Space.comments': [3, (s) => s.comments],
          'Space.changeRequests': [1, (s) => s.changeRequests],
          'Space.changeRequestsOpen': [1, (s) => s.changeRequestsOpen],
        });
      });
    });

    it('collection: concurrent PATCH of title, description, defaultLevel and a move keeps every change', async () => {
      const parent = (await created(o('/collections'), { title: 'Outer' })).id;
      await rounds(async (r) => {
        const path = `/v1/collections/${(await created(o('/collections'), { title: `Inner ${r}` })).id}`;
        const { writes, expected } = eachField((body) => admin.patch(path, body), { title: `Renamed ${r}`, description: `About ${r}`, defaultLevel: 'review' });
        return concurrently({ ...writes, parent: () => admin.post(`${path}/move`, { parent }) }, () => read(path), {
          ...expected,
          parent: [parent, (c) => c.parent],
        });
      });
    });

    it('change request: concurrent PATCH of subject, description, status with reviews, requested reviewers, content and comments keeps every change', async () => {
      const [space] = await newSpaces(1);
      await rounds(async (r) => {
        const path = `/v1/spaces/${space}/change-requests/${(await created(`/v1/spaces/${space}/change-requests`, { subject: `CR ${r}`, status: 'draft' })).id}`;
        const [first, second] = [users[10 + ((2 * r) % 10)], users[11 + ((2 * r) % 10)]];
        const requestedOf = async (user: TestAccount) =>
          (await read(o(`/change-requests?status=draft&status=open&requestedReviewer=${user.userId}`))).items.map((cr: any) => cr.id);
        const { writes, expected } = eachField(
          (body) => admin.patch(path, body),
          { subject: `Concurrent CR ${r}`, description: doc(`Why ${r}`), status: 'open' },
          (s) => s.cr,
        );
        const more: Writes = {
          'review (approved)': () => org.members.review.api.post(`${path}/reviews`, { status: 'approved' }),
          'review (changes requested)': () => org.members.create.api.post(`${path}/reviews`, { status: 'changes-requested' }),
          'requested reviewer 1': () => admin.post(`${path}/requested-reviewers`, { users: [first.userId] }),
          'requested reviewer 2': () => admin.post(`${path}/requested-reviewers`, { users: [second.userId] }),
          content: () => admin.post(`${path}/content`, { changes: [{ type: 'insert_page', title: `Page ${r}` }] }),
          ...times(2, (i) => [`comment ${i}`, () => admin.post(`${path}/comments`, { body: { markdown: `Comment ${i}` } })]),
        };
        const readBack = async () => ({
          cr: await read(path),
          reviews: await read(`${path}/reviews`),
          pages: await read(`${path}/content/pages`),
          requested: [await requestedOf(first), await requestedOf(second)],
        });
        const crId = path.split('/').pop();
        return concurrently({ ...writes, ...more }, readBack, {
          ...expected,
          reviews: [
            { [org.members.review.userId]: 'approved', [org.members.create.userId]: 'changes-requested' },
            (s) => Object.fromEntries(s.reviews.items.map((review: any) => [review.reviewer.id, review.status])),
          ],
          'requested reviewers': [[true, true], (s) => s.requested.map((ids: string[]) => ids.includes(crId!))],
          content: [true, (s) => s.pages.pages.some((page: any) => page.title === `Page ${r}`)],
          'ChangeRequest.comments': [2, (s) => s.cr.comments],
        });
      });
    });

    it('comment: concurrent PUT of body, resolved and reactions of different users, with replies, keeps every change', async () => {
      const [space] = await newSpaces(1);
      await rounds(async (r) => {
        const path = await newComment(`/v1/spaces/${space}`);
        const { writes: reacting, reactions } = reactingAtOnce(path, users.slice(0, 6));
        const writes: Writes = {
          body: () => admin.put(path, { body: { markdown: `Edited ${r}` } }),
          resolved: () => org.members.comment.api.put(path, { resolved: true }),
          ...reacting,
          'reply 1': () => org.members.review.api.post(`${path}/replies`, { body: { markdown: 'First reply' } }),
          'reply 2': () => org.members.create.api.post(`${path}/replies`, { body: { markdown: 'Second reply' } }),
        };
        return concurrently(writes, () => read(path), {
          body: [`Edited ${r}`, (c) => c.body.markdown],
          resolved: ['resolved', (c) => c.status],
          reactions: [reactions, reactionsOf],
          'Comment.replies': [2, (c) => c.replies],
          repliers: [{ [org.members.review.userId]: 1, [org.members.create.userId]: 1 }, repliersOf],
        });
      });
    });

    it('reply: concurrent PUT of body and reactions of different users keeps every change', async () => {
      const [space] = await newSpaces(1);
      await rounds(async (r) => {
        const comment = await newComment(`/v1/spaces/${space}`);
        const path = await newReply(comment);
        const { writes: reacting, reactions } = reactingAtOnce(path, users.slice(6, 12));
        const writes: Writes = {
          body: () => admin.put(path, { body: { markdown: `Edited reply ${r}` } }),
          ...reacting,
          'another reply': () => org.members.review.api.post(`${comment}/replies`, { body: { markdown: 'Another' } }),
        };
        return concurrently(writes, () => read(path), { body: [`Edited reply ${r}`, (c) => c.body.markdown], reactions: [reactions, reactionsOf] });
      });
    });

    it('site: concurrent PATCH of title, basename, visibility, agentsContext, adaptiveContent, hostname, proxy with publish and visitor auth keeps every change', async () => {
      const [space] = await newSpaces(1);
      await rounds(async (r) => {
        const path = o(`/sites/${await newSite([space])}`);
        const now = await read(path);
        const fields = {
          title: `Renamed site ${r}`,
          basename: `docs-${r}`,
          visibility: now.visibility === 'unlisted' ? 'share-link' : 'unlisted',
          agentsContext: now.agentsContext === 'included' ? 'excluded' : 'included',
          adaptiveContent: { enabled: !now.adaptiveContent.enabled },
          hostname: `docs${r}-${suffix}.concurrency.test`,
          proxy: `concurrency.test/docs${r}`,
        };
        const { writes, expected } = eachField(
          (body) => admin.patch(path, body),
          fields,
          (s) => s.site,
          { proxy: (site) => site.proxy?.origin },
        );
        const more: Writes = {
          published: () => admin.post(`${path}/publish`),
          fallbackURL: () => admin.patch(`${path}/publishing/auth`, { fallbackURL: `https://login.example.com/${r}` }),
        };
        return concurrently({ ...writes, ...more }, async () => ({ site: await read(path), auth: await read(`${path}/publishing/auth`) }), {
          ...expected,
          published: [true, (s) => s.site.published],
          fallbackURL: [`https://login.example.com/${r}`, (s) => s.auth.fallbackURL],
        });
      });
    });

    it('section: concurrent PATCH of title, path, defaultSiteSpace, condition, icon, description keeps every change', async () => {
      const spaces = await newSpaces(2 * ROUNDS);
      const site = o(`/sites/${await newSite()}`);
      await rounds(async (r) => {
        const section = await created(`${site}/sections`, { spaceId: spaces[2 * r], title: `Section ${r}` });
        const variant = await created(`${site}/site-spaces`, { spaceId: spaces[2 * r + 1], sectionId: section.id });
        const fields = {
          title: `Renamed section ${r}`,
          path: `section-${r}`,
          defaultSiteSpace: variant.id,
          condition: `visitor.claims.round${r} == true`,
          icon: 'book',
          description: `About section ${r}`,
        };
        const { writes, expected } = eachField((body) => admin.patch(`${site}/sections/${section.id}`, body), fields, undefined, {
          defaultSiteSpace: (s) => s.siteSpaces.find((v: any) => v.default)?.id,
        });
        return concurrently(writes, () => item(`${site}/sections`, section.id), expected);
      });
    });

    it('section group: concurrent PATCH of title and icon with additions of sections keeps every change', async () => {
      const spaces = await newSpaces(3 * ROUNDS);
      const site = o(`/sites/${await newSite()}`);
      await rounds(async (r) => {
        const sections: string[] = [];
        for (const spaceId of spaces.slice(3 * r, 3 * r + 3)) sections.push((await created(`${site}/sections`, { spaceId })).id);
        const group = (await created(`${site}/section-groups`, { title: `Group ${r}` })).id;
        const path = `${site}/section-groups/${group}`;
        const { writes, expected } = eachField((body) => admin.patch(path, body), { title: `Renamed group ${r}`, icon: 'folder' });
        const additions = times(sections.length, (i) => [`section ${i}`, () => admin.post(`${path}/sections`, { sectionId: sections[i] })]);
        return concurrently({ ...writes, ...additions }, () => item(`${site}/section-groups`, group), {
          ...expected,
          sections: [[...sections].sort(), (g) => g.children.map((child: any) => child.id).sort()],
        });
      });
    });

    it('site space: concurrent PATCH of path, condition and target space keeps every change', async () => {
      const spaces = await newSpaces(2 * ROUNDS);
      const site = o(`/sites/${await newSite()}`);
      await rounds(async (r) => {
        const siteSpace = (await created(`${site}/site-spaces`, { spaceId: spaces[2 * r] })).id;
        const fields = { path: `variant-${r}`, condition: `visitor.claims.beta${r} == true`, spaceId: spaces[2 * r + 1] };
        const { writes, expected } = eachField((body) => admin.patch(`${site}/site-spaces/${siteSpace}`, body), fields, undefined, {
          spaceId: (s) => s.space.id,
        });
        return concurrently(writes, () => item(`${site}/site-spaces`, siteSpace), expected);
      });
    });

    it('share link: concurrent PATCH of name and active keeps both changes', async () => {
      const site = o(`/sites/${await newSite()}`);
      await rounds(async (r) => {
        const link = (await created(`${site}/share-links`, { name: `Link ${r}` })).id;
        const { writes, expected } = eachField((body) => admin.patch(`${site}/share-links/${link}`, body), { name: `Renamed link ${r}`, active: false });
        return concurrently(
          { ...writes, 'another link': () => admin.post(`${site}/share-links`, { name: 'Other' }) },
          () => item(`${site}/share-links`, link),
          expected,
        );
      });
    });

    it('adaptive schema: concurrent PUT of the schema with PATCHes, publish and visitor auth of its site keeps every change', async () => {
      await rounds(async (r) => {
        const path = o(`/sites/${await newSite()}`);
        const jsonSchema = { type: 'object', properties: { [`round${r}`]: { type: 'boolean', description: `Round ${r}` } }, additionalProperties: false };
        const { writes, expected } = eachField(
          (body) => admin.patch(path, body),
          { title: `Adaptive ${r}`, basename: `adaptive-${r}` },
          (s) => s.site,
        );
        const more: Writes = {
          jsonSchema: () => admin.put(`${path}/adaptive-schema`, { jsonSchema }),
          published: () => admin.post(`${path}/publish`),
          logoutURL: () => admin.patch(`${path}/publishing/auth`, { logoutURL: `https://login.example.com/out/${r}` }),
        };
        const readBack = async () => ({ site: await read(path), schema: await read(`${path}/adaptive-schema`), auth: await read(`${path}/publishing/auth`) });
        return concurrently({ ...writes, ...more }, readBack, {
          ...expected,
          jsonSchema: [jsonSchema, (s) => s.schema.jsonSchema],
          published: [true, (s) => s.site.published],
          logoutURL: [`https://login.example.com/out/${r}`, (s) => s.auth.logoutURL],
        });
      });
    });
  });

  describe('concurrent counters end exact', () => {
    const newSpace = async () => `/v1/spaces/${(await newSpaces(1))[0]}`;

    for (const scope of ['Space', 'ChangeRequest'] as const) {
      it(`${scope}.comments: 20 comments posted at once count 20, 10 resolved at once leave 10, 5 deleted at once leave 5`, async () => {
        await rounds(async () => {
          const space = await newSpace();
          const owner = scope === 'Space' ? space : `${space}/change-requests/${(await created(`${space}/change-requests`, { subject: 'Counted' })).id}`;
          const count = (value: number, after: string): Expected => ({ [`${scope}.comments after ${after}`]: [value, (s) => s.comments] });
          const post = times(20, (i) => [`post ${i}`, () => admin.post(`${owner}/comments`, { body: { markdown: `Comment ${i}` } })]);
          const lost = await concurrently(post, () => read(owner), count(20, '20 posts'));
          const ids: string[] = (await read(`${owner}/comments?limit=1000`)).items.map((c: any) => c.id);
          assert.equal(ids.length, 20, 'every comment posted is listed');
          const resolve = times(10, (i) => [`resolve ${i}`, () => admin.put(`${owner}/comments/${ids[i]}`, { resolved: true })]);
          lost.push(...(await concurrently(resolve, () => read(owner), count(10, '10 resolved'))));
          const remove = times(5, (i) => [`delete ${i}`, () => admin.delete(`${owner}/comments/${ids[10 + i]}`)]);
          lost.push(...(await concurrently(remove, () => read(owner), count(5, '5 deleted'))));
          return lost;
        });
      });
    }

    it('Comment.replies and repliers: 20 replies from 4 users at once count 20, 5 per replier', async () => {
      const repliers = users.slice(0, 4);
      await rounds(async () => {
        const comment = await newComment(await newSpace());
        const replies = times(20, (i) => [`reply ${i}`, () => repliers[i % 4].api.post(`${comment}/replies`, { body: { markdown: `Reply ${i}` } })]);
        return concurrently(replies, async () => ({ comment: await read(comment), listed: await read(`${comment}/replies?limit=1000`) }), {
          'Comment.replies': [20, (s) => s.comment.replies],
          repliers: [Object.fromEntries(repliers.map((u) => [u.userId, 5])), (s) => repliersOf(s.comment)],
          'replies listed': [20, (s) => s.listed.items.length],
        });
      });
    });

    it('reactions: 20 users reacting at once (two emoji each, one request per emoji) to one comment and one reply are each counted', async () => {
      await rounds(async () => {
        const comment = await newComment(await newSpace());
        const reply = await newReply(comment);
        const writes: Writes = {};
        const expected: Record<string, string[]> = { '👍': [] };
        users.forEach((user, i) => {
          const own = EMOJIS[i % 5];
          for (const target of [comment, reply]) {
            writes[`👍 of user ${i} on the ${target === comment ? 'comment' : 'reply'}`] = () => user.api.put(target, { addedReactions: ['👍'] });
            writes[`${own} of user ${i} on the ${target === comment ? 'comment' : 'reply'}`] = () => user.api.put(target, { addedReactions: [own] });
          }
          expected['👍'].push(user.userId);
          (expected[own] ??= []).push(user.userId);
        });
        const reactions = reactionsFrom(expected);
        return concurrently(writes, async () => ({ comment: await read(comment), reply: await read(reply) }), {
          'comment reactions': [reactions, (s) => reactionsOf(s.comment)],
          'reply reactions': [reactions, (s) => reactionsOf(s.reply)],
        });
      });
    });

    it('Space change request counters: 10 created at once get numbers 1-10 and exact counts; status changes and merges at once keep them exact and every merged page', async () => {
      await rounds(async () => {
        const space = await newSpace();
        const crs = `${space}/change-requests`;
        const counters = (total: number, open: number, draft: number, after: string): Expected => ({
          [`Space.changeRequests after ${after}`]: [total, (s) => s.changeRequests],
          [`Space.changeRequestsOpen after ${after}`]: [open, (s) => s.changeRequestsOpen],
          [`Space.changeRequestsDraft after ${after}`]: [draft, (s) => s.changeRequestsDraft],
        });
        const create = times(10, (i) => [`create ${i}`, () => admin.post(crs, { subject: `CR ${i}`, status: i < 5 ? 'open' : 'draft' })]);
        const lost = await concurrently(create, () => read(space), counters(10, 5, 5, '10 created'));
        const all = [...(await read(`${crs}?status=open&limit=1000`)).items, ...(await read(`${crs}?status=draft&limit=1000`)).items];
        const numbers = all.map((cr: any) => cr.number).sort((a: number, b: number) => a - b);
        if (!isDeepStrictEqual(numbers, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])) lost.push(`numbers: expected 1..10 once each, found ${show(numbers)}`);
        const [open, draft] = ['open', 'draft'].map((status) => all.filter((cr: any) => cr.status === status).map((cr: any) => cr.id as string));
        // Two open and two drafts archived, one draft opened: open 5-2+1, draft 5-2-1.
        const moves: Writes = {
          ...times(2, (i) => [`archive open ${i}`, () => admin.patch(`${crs}/${open[i]}`, { status: 'archived' })]),
          ...times(2, (i) => [`archive draft ${i}`, () => admin.patch(`${crs}/${draft[i]}`, { status: 'archived' })]),
          'open a draft': () => admin.patch(`${crs}/${draft[2]}`, { status: 'open' }),
        };
        lost.push(...(await concurrently(moves, () => read(space), counters(10, 4, 2, 'status changes'))));
        // Three open change requests, each adding its own page, merged at once.
        const merging = open.slice(2, 5);
        await Promise.all(
          merging.map((id, i) =>
            succeed(`content ${i}`, () => admin.post(`${crs}/${id}/content`, { changes: [{ type: 'insert_page', title: `Merged ${i}` }] })),
          ),
        );
        const merges = times(merging.length, (i) => [`merge ${i}`, () => admin.post(`${crs}/${merging[i]}/merge`)]);
        const readBack = async () => ({ ...(await read(space)), pages: (await read(`${space}/content/pages`)).pages });
        const merged = (s: any) =>
          s.pages
            .map((p: any) => p.title)
            .filter((title: string) => title.startsWith('Merged'))
            .sort();
        lost.push(
          ...(await concurrently(merges, readBack, { ...counters(10, 1, 2, '3 merges'), 'merged pages': [['Merged 0', 'Merged 1', 'Merged 2'], merged] })),
        );
        return lost;
      });
    });

    it('site structure: 6 sections then 6 site spaces added at once are all there and Site.siteSpaces is exact', async () => {
      await rounds(async () => {
        const spaces = await newSpaces(12);
        const site = o(`/sites/${await newSite()}`);
        const structure = async () => ({
          site: await read(site),
          sections: await read(`${site}/sections?limit=1000`),
          siteSpaces: await read(`${site}/site-spaces?limit=1000`),
        });
        const sections = times(6, (i) => [`section ${i}`, () => admin.post(`${site}/sections`, { spaceId: spaces[i] })]);
        const lost = await concurrently(sections, structure, {
          'sections listed': [6, (s) => s.sections.count],
          'Site.siteSpaces after 6 sections': [6, (s) => s.site.siteSpaces],
        });
        const first = (await read(`${site}/sections?limit=1000`)).items[0].id;
        const variants = times(6, (i) => [`site space ${i}`, () => admin.post(`${site}/site-spaces`, { spaceId: spaces[6 + i], sectionId: first })]);
        lost.push(
          ...(await concurrently(variants, structure, {
            'site spaces listed': [[...spaces].sort(), (s) => s.siteSpaces.items.map((v: any) => v.space.id).sort()],
            'Site.siteSpaces after 6 more': [12, (s) => s.site.siteSpaces],
          })),
        );
        return lost;
      });
    });
  });
});
