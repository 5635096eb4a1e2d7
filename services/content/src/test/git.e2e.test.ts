import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createJobQueue } from '@quire/async';
import { createLogger } from '@quire/runtime';
import {
  assertMatchesOpenApi,
  isolatedGit,
  startTestStack,
  type TestAccount,
  type TestStack,
  expectError as assertError,
  expectOk as ok,
} from '@quire/testkit';
import { startGitHttpServer, startRedirectServer, type GitHttpServer } from './git-http-server';

/**
 * Git import and export through the gateway, against real git: bare repositories over
 * file:// made by the test, and a smart-HTTP server requiring basic auth. The stack allows
 * both explicitly (file and http transports, private networks): production allows neither
 * (git-egress.e2e.test.ts).
 */

type Files = Record<string, string | Buffer | null>;

let workRoot: string;
const { run: git, bytes: gitBytes } = isolatedGit(() => workRoot);

/** A bare repository (the remote) and a working clone the test commits from. */
class TestRepo {
  readonly bare: string;
  readonly work: string;

  constructor(
    root: string,
    readonly name: string,
  ) {
    this.bare = path.join(root, `${name}.git`);
    this.work = path.join(workRoot, `${name}-${randomBytes(3).toString('hex')}`);
    git(root, 'init', '--quiet', '--bare', '--initial-branch=main', this.bare);
    git(workRoot, 'clone', '--quiet', this.bare, this.work);
    git(this.work, 'checkout', '--quiet', '-B', 'main');
  }

  get url(): string {
    return pathToFileURL(this.bare).href;
  }

  /** Writes (null: deletes) files, commits and pushes; returns the commit id. */
  commit(files: Files, message: string, branch = 'main'): string {
    for (const [file, content] of Object.entries(files)) {
      const full = path.join(this.work, file);
      if (content === null) unlinkSync(full);
      else {
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    }
    git(this.work, 'add', '--all');
    git(this.work, 'commit', '--quiet', '-m', message);
    git(this.work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
    return git(this.work, 'rev-parse', 'HEAD');
  }

  /** Brings the working clone to the remote branch (after an export pushed to it). */
  pull(branch = 'main'): void {
    git(this.work, 'fetch', '--quiet', 'origin', branch);
    git(this.work, 'reset', '--quiet', '--hard', `origin/${branch}`);
  }

  head(branch = 'main'): string | null {
    try {
      return git(this.bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
    } catch {
      return null;
    }
  }

  files(branch = 'main'): string[] {
    return git(this.bare, 'ls-tree', '-r', '--name-only', branch).split('\n').filter(Boolean);
  }

  show(file: string, branch = 'main'): Buffer {
    return gitBytes(this.bare, 'show', `${branch}:${file}`);
  }

  blobOid(file: string, branch = 'main'): string {
    return git(this.bare, 'rev-parse', `${branch}:${file}`);
  }
}

const png = randomBytes(2048);
const diagram = randomBytes(4096);
const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(1024)]);

const DOCS: Files = {
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Welcome](README.md)',
    '* [Guides](guides/README.md)',
    '  * [Install](guides/install.md)',
    '  * [Configure](guides/configure.md)',
    '',
    '## Reference',
    '',
    '* [API](reference/api.md)',
    '',
  ].join('\n'),
  'README.md': '# Welcome\n\nStart with the [install guide](guides/install.md#steps).\n\n![Logo](.gitbook/assets/logo.png)\n',
  'guides/README.md': '---\ndescription: How to use it\nicon: 📘\n---\n\n# Guides\n\nPick a guide.\n',
  'guides/install.md':
    '---\ntitle: Installation\nhidden: true\n---\n\n# Install\n\n## Steps\n\nRun the installer. ![Diagram](../images/diagram.png)\n\nBack to [the start](../README.md).\n',
  'guides/configure.md':
    '---\nvars:\n  port: "8080"\n---\n# Configure\n\nSet `port` in `config.yaml`: see [API](../reference/api.md).\n\n```md\n[not a link](../README.md)\n```\n',
  'reference/api.md': '# API\n\n{% file src="../.gitbook/assets/spec.pdf" %}\nThe spec.\n{% endfile %}\n',
  '.gitbook/assets/logo.png': png,
  'images/diagram.png': diagram,
  '.gitbook/assets/spec.pdf': pdf,
  '.gitbook/vars.yaml': 'product: Quire\n',
};

interface PageNode {
  id: string;
  title: string;
  slug: string;
  markdown: string;
  pages: PageNode[];
  [key: string]: any;
}

const flat = (pages: PageNode[]): PageNode[] => pages.flatMap((page) => [page, ...flat(page.pages)]);
const outline = (pages: PageNode[]): unknown[] => pages.map((page) => [page.title, page.slug, outline(page.pages)]);

describe('content: Git import and export (end to end)', () => {
  let stack: TestStack;
  let orgId: string;
  let admin: TestAccount;
  let editor: TestAccount;
  let reader: TestAccount;
  let guest: TestAccount;
  let outsider: TestAccount;
  let remotes: string;
  let httpRoot: string;
  let server: GitHttpServer;
  /** The stack's temporary directory: where its git work directories go (and must not stay). */
  let serviceTmp: string;
  const username = 'sync-bot';
  const password = `Tr0ub4dor&3-${randomBytes(6).toString('hex')}`;
  const wrongPassword = `wrong-${randomBytes(6).toString('hex')}`;

  const newSpace = async (title: string): Promise<string> => ok(await admin.api.post(`/v1/orgs/${orgId}/spaces`, { title }), 201).id;
  const content = async (spaceId: string) => ok(await reader.api.get(`/v1/spaces/${spaceId}/content`));
  const info = async (spaceId: string) => ok(await reader.api.get(`/v1/spaces/${spaceId}/git/info`));

  /** Polls git info until the latest operation is no longer running (bounded by attempts, not time). */
  const settle = async (spaceId: string) => {
    for (let attempt = 0; attempt < 1_200; attempt += 1) {
      const state = await info(spaceId);
      if (state.operation?.state !== 'running') return state;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail('the git operation is still running');
  };
  const importRepo = async (spaceId: string, body: Record<string, unknown>) => {
    ok(await editor.api.post(`/v1/spaces/${spaceId}/git/import`, { ref: 'refs/heads/main', ...body }), 204);
    return settle(spaceId);
  };
  /** A new space imported from `url`: its content, its pages' ids by title, and a page by title as the API answers it (checked against the API document). */
  const importedSpace = async (title: string, url: string) => {
    const spaceId = await newSpace(title);
    succeeded(await importRepo(spaceId, { url }));
    const imported = await content(spaceId);
    const ids = new Map(flat(imported.pages).map((page) => [page.title, page.id]));
    const page = async (pageTitle: string) => {
      const answer = ok(await reader.api.get(`/v1/spaces/${spaceId}/content/page/${ids.get(pageTitle)}`));
      assertMatchesOpenApi('RevisionPageDocument', answer);
      return answer;
    };
    return { spaceId, imported, ids, page };
  };
  const exportRepo = async (spaceId: string, body: Record<string, unknown>) => {
    ok(await editor.api.post(`/v1/spaces/${spaceId}/git/export`, { ref: 'refs/heads/main', commitMessage: 'Update from Quire', ...body }), 204);
    return settle(spaceId);
  };
  const succeeded = (state: any) => {
    assert.equal(state.operation.state, 'success', JSON.stringify(state.operation));
    return state;
  };

  beforeAll(async () => {
    workRoot = mkdtempSync(path.join(os.tmpdir(), 'quire-git-test-'));
    remotes = path.join(workRoot, 'remotes');
    httpRoot = path.join(workRoot, 'http');
    mkdirSync(remotes);
    mkdirSync(httpRoot);
    serviceTmp = path.join(workRoot, 'service-tmp');
    mkdirSync(serviceTmp);
    server = await startGitHttpServer({ projectRoot: httpRoot, username, password, hold: /slow/ });
    stack = await startTestStack({
      LOG_LEVEL: 'info',
      GIT_ALLOWED_PROTOCOLS: 'https,http,file',
      GIT_ALLOW_PRIVATE_NETWORKS: 'true',
      GIT_OPERATION_TIMEOUT_MS: '10000',
      GIT_MAX_FILES: '400',
      // Two of the organization's jobs at once: the bounds test holds both worker slots with it.
      GIT_JOBS_ACTIVE_PER_ORGANIZATION: '2',
      TMPDIR: serviceTmp,
    });
    const organization = await stack.organization({ domain: 'git.test', roles: ['edit', 'read', 'guest'] });
    ({ admin, outsider } = organization);
    orgId = organization.id;
    ({ edit: editor, read: reader, guest } = organization.members);
  });

  afterAll(async () => {
    if (process.env.QUIRE_TEST_SHOW_OUTPUT) console.log(stack?.output());
    await stack?.stop();
    await server?.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  // Shared by the tests below, in order: one space synced with the `docs` repository.
  let docs: TestRepo;
  let space: string;
  let firstIds: Map<string, string>;

  it('imports a SUMMARY.md tree through the official client: pages, front matter, files, links, git metadata', async () => {
    docs = new TestRepo(remotes, 'docs');
    const commit = docs.commit(DOCS, 'Initial docs\n\nWith a body.');
    space = await newSpace('Docs');
    assertError(await reader.api.get(`/v1/spaces/${space}/git/info`), 404);
    const client: any = new GitBookAPI({ authToken: editor.token, endpoint: stack.baseUrl });
    const queued = await client.spaces.importGitRepository(space, {
      url: docs.url,
      ref: 'refs/heads/main',
      repoCommitURL: 'https://git.example.test/acme/docs/commit/',
      gitInfo: { provider: 'gitlab' },
    });
    assert.equal(queued.status, 204);
    const state = succeeded(await settle(space));
    assertMatchesOpenApi('GitSyncState', state);
    assert.equal(state.installationProvider, 'gitlab');
    assert.equal(state.installationStatus, 'active');
    assert.equal(state.url, docs.url);
    assert.equal(state.repoName, 'docs');
    assert.equal(state.operation.direction, 'import');
    assert.equal(state.operation.stage, 'finalize');
    assert.equal(state.operation.commit, commit);
    assert.ok(state.operation.completedAt >= state.operation.startedAt);
    assert.equal((await client.spaces.getSpaceGitInfo(space)).data.operation.state, 'success');

    const revision = await content(space);
    assertMatchesOpenApi('Revision', revision);
    assert.equal(revision.id, state.operation.revision);
    assert.deepEqual(outline(revision.pages), [
      ['Welcome', 'welcome', []],
      [
        'Guides',
        'guides',
        [
          ['Installation', 'install', []],
          ['Configure', 'configure', []],
        ],
      ],
      ['Reference', 'reference', [['API', 'api', []]]],
    ]);
    assert.deepEqual(revision.git, {
      oid: commit,
      message: 'Initial docs\n\nWith a body.',
      createdByService: false,
      createdByGitBook: false,
      ref: 'refs/heads/main',
      url: `https://git.example.test/acme/docs/commit/${commit}`,
    });
    assert.deepEqual(revision.variables, { product: 'Quire' });
    const pages = new Map(flat(revision.pages).map((page) => [page.slug, page]));
    const [welcome, guides, install, configure, reference, api] = ['welcome', 'guides', 'install', 'configure', 'reference', 'api'].map(
      (slug) => pages.get(slug) as PageNode,
    );
    assert.deepEqual(welcome.git, { oid: docs.blobOid('README.md'), path: 'README.md' });
    assert.deepEqual(install.git, { oid: git(docs.work, 'hash-object', 'guides/install.md'), path: 'guides/install.md' });
    assert.equal(reference.git, undefined, 'a SUMMARY group has no file');
    assert.equal(guides.description, 'How to use it');
    assert.equal(guides.emoji, '📘');
    assert.equal(install.hidden, true);
    assert.equal(guides.hidden, false);
    assert.deepEqual(configure.variables, { port: '8080' });

    const files = new Map<string, any>(revision.files.map((file: any) => [file.name, file]));
    assert.deepEqual([...files.keys()].sort(), ['diagram.png', 'logo.png', 'spec.pdf']);
    assert.deepEqual(files.get('diagram.png').git, { oid: docs.blobOid('images/diagram.png'), path: 'images/diagram.png' });
    assert.equal(files.get('logo.png').contentType, 'image/png');
    assert.equal(files.get('spec.pdf').contentType, 'application/pdf');
    for (const [name, bytes, type, disposition] of [
      ['logo.png', png, 'image/png', 'inline'],
      ['diagram.png', diagram, 'image/png', 'inline'],
      // Imported files are served by the same rules as uploads (file-headers.ts): no PDF inline.
      ['spec.pdf', pdf, 'application/octet-stream', 'attachment'],
    ] as const) {
      const download = await fetch(files.get(name).downloadURL);
      assert.deepEqual([download.headers.get('content-type'), download.headers.get('content-disposition')?.split(';')[0]], [type, disposition], name);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes, name);
    }

    assert.equal(welcome.markdown, `Start with the [install guide](/pages/${install.id}#steps).\n\n![Logo](/files/${files.get('logo.png').id})`);
    assert.equal(
      install.markdown,
      `## Steps\n\nRun the installer. ![Diagram](/files/${files.get('diagram.png').id})\n\nBack to [the start](/pages/${welcome.id}).`,
    );
    assert.ok(configure.markdown.includes(`see [API](/pages/${api.id})`));
    assert.ok(configure.markdown.includes('[not a link](../README.md)'), 'code blocks are left alone');
    assert.ok(api.markdown.includes(`{% file src="/files/${files.get('spec.pdf').id}" %}`));
    const links = ok(await reader.api.get(`/v1/spaces/${space}/links`));
    assert.equal(links.stats.broken.total, 0, JSON.stringify(links.items));
    firstIds = new Map(flat(revision.pages).map((page) => [page.slug, page.id]));
  });

  it('shows Space.gitSync on synced spaces only: single gets, organization lists and member lists', async () => {
    const state = await info(space);
    const expected = {
      installationId: state.installationId,
      installationProvider: 'gitlab',
      installationStatus: 'active',
      integration: 'gitlab',
      repoName: 'docs',
      url: docs.url,
      updatedAt: state.updatedAt,
    };
    const one = ok(await reader.api.get(`/v1/spaces/${space}`));
    assertMatchesOpenApi('Space', one);
    assert.deepEqual(one.gitSync, expected);
    const plain = await newSpace('Without Git');
    const other = ok(await reader.api.get(`/v1/spaces/${plain}`));
    assert.equal('gitSync' in other, false);

    const listed = ok(await reader.api.get(`/v1/orgs/${orgId}/spaces?limit=100`));
    const byId = new Map<string, any>(listed.items.map((item: any) => [item.id, item]));
    for (const item of listed.items) assertMatchesOpenApi('Space', item);
    assert.deepEqual(byId.get(space).gitSync, expected);
    assert.equal('gitSync' in byId.get(plain), false);

    // Member lists present spaces through the content service's batched gRPC reads.
    const memberSpaces = ok(await admin.api.get(`/v1/orgs/${orgId}/members/${admin.userId}/spaces?limit=100`));
    const fromMember = new Map<string, any>(memberSpaces.items.map((item: any) => [item.space.id, item.space]));
    assert.deepEqual(fromMember.get(space).gitSync, expected);
    assert.equal('gitSync' in fromMember.get(plain), false);
  });

  it('imports the directory layout: README first, .md files as pages, sub-directories as parent pages', async () => {
    const repo = new TestRepo(remotes, 'layout');
    repo.commit(
      {
        'README.md': '# Home\n\nWelcome.',
        'b-second.md': '# Second',
        'a-first.md': '---\ndescription: First one\n---\nFirst body without a heading.',
        'tools/README.md': '# Tools\n\nAll tools.',
        'tools/hammer.md': 'Title\n=====\n\nSetext heading.',
        'zeta/deep/leaf.md': '# Leaf',
        '.github/CONTRIBUTING.md': '# Not a page',
        'logo.svg': '<svg/>',
      },
      'Layout',
    );
    const spaceId = await newSpace('Layout');
    succeeded(await importRepo(spaceId, { url: repo.url }));
    const revision = await content(spaceId);
    assert.deepEqual(outline(revision.pages), [
      ['Home', 'home', []],
      ['A first', 'a-first', []],
      ['Second', 'b-second', []],
      ['Tools', 'tools', [['Title', 'hammer', []]]],
      ['Zeta', 'zeta', [['Deep', 'deep', [['Leaf', 'leaf', []]]]]],
    ]);
    const pages = flat(revision.pages);
    assert.equal(pages[1].description, 'First one');
    assert.equal(pages[1].markdown, 'First body without a heading.');
    assert.equal(pages[4].markdown, 'Setext heading.');
    assert.equal(pages[5].git, undefined, 'a directory without README.md is an empty page');
    assert.deepEqual(pages[3].git.path, 'tools/README.md');
  });

  it('runs the operations of one space one after the other, in the order they were requested', async () => {
    const source = new TestRepo(remotes, 'ordered');
    source.commit({ 'README.md': '# Ordered\n\nFirst.', 'next.md': '# Next' }, 'Ordered');
    const target = new TestRepo(remotes, 'ordered-out');
    const spaceId = await newSpace('Ordered');
    ok(await editor.api.post(`/v1/spaces/${spaceId}/git/import`, { url: source.url, ref: 'refs/heads/main' }), 204);
    ok(await editor.api.post(`/v1/spaces/${spaceId}/git/export`, { url: target.url, ref: 'refs/heads/main', commitMessage: 'After the import' }), 204);
    const state = succeeded(await settle(spaceId));
    assert.equal(state.operation.direction, 'export', 'git info shows the latest requested operation');
    assert.deepEqual(
      target
        .files()
        .filter((file) => file.endsWith('.md'))
        .sort(),
      ['SUMMARY.md', 'next.md', 'ordered.md'],
      'the export ran after the import',
    );
  });

  it('honours repoProjectDirectory and .gitbook.yaml (root, structure.readme, structure.summary); outside files link to repoTreeURL', async () => {
    const repo = new TestRepo(remotes, 'mono');
    repo.commit(
      {
        'README.md': '# The code repository',
        'src/index.ts': 'export {};\n',
        'project/.gitbook.yaml': 'root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc.md\n',
        'project/docs/intro.md': '# Intro\n\nSee [the code](../../src/index.ts) and [usage](usage/guide.md).',
        'project/docs/toc.md': '# Contents\n\n* [Usage](usage/guide.md)\n',
        'project/docs/usage/guide.md': '# Guide\n\nUse it.',
        'project/docs/README.md': '# Not listed',
      },
      'Monorepo',
    );
    const spaceId = await newSpace('Mono');
    succeeded(await importRepo(spaceId, { url: repo.url, repoProjectDirectory: 'project/', repoTreeURL: 'https://git.example.test/acme/mono/tree/main' }));
    const revision = await content(spaceId);
    assert.deepEqual(outline(revision.pages), [
      ['Intro', 'intro', []],
      ['Usage', 'guide', []],
    ]);
    const [intro, guide] = flat(revision.pages);
    assert.equal(intro.git.path, 'project/docs/intro.md');
    assert.equal(intro.markdown, `See [the code](https://git.example.test/acme/mono/tree/main/src/index.ts) and [usage](/pages/${guide.id}).`);
    assert.deepEqual(revision.files, []);

    const missing = await importRepo(spaceId, { url: repo.url, repoProjectDirectory: 'nowhere' });
    assert.equal(missing.operation.state, 'failure');
    assert.match(missing.operation.error, /project directory "nowhere" does not exist/);
  });

  it('keeps page ids across re-imports, applies timestamps in order, makes standalone revisions, and refuses to drop unexported edits without force', async () => {
    const t1 = new Date(Date.now() - 60_000).toISOString();
    const t2 = new Date().toISOString();
    docs.commit(
      {
        'SUMMARY.md': String(DOCS['SUMMARY.md']).replace(
          '  * [Install](guides/install.md)\n  * [Configure](guides/configure.md)',
          '  * [Configure](guides/configure.md)\n  * [Install](guides/install.md)\n  * [FAQ](guides/faq.md)',
        ),
        'guides/install.md': '# Install\n\nRun the new installer. ![Diagram](../images/diagram.png)\n',
        'guides/faq.md': '# FAQ\n\nAsk.',
      },
      'Reorder and add a FAQ',
    );
    succeeded(await importRepo(space, { url: docs.url, timestamp: t2 }));
    const second = await content(space);
    assert.deepEqual(outline(second.pages)[1], [
      'Guides',
      'guides',
      [
        ['Configure', 'configure', []],
        ['Install', 'install', []],
        ['FAQ', 'faq', []],
      ],
    ]);
    const ids = new Map(flat(second.pages).map((page) => [page.slug, page.id]));
    for (const slug of ['welcome', 'guides', 'configure', 'install', 'reference', 'api'])
      assert.equal(ids.get(slug), firstIds.get(slug), `${slug} keeps its id`);
    assert.ok(![...firstIds.values()].includes(ids.get('faq') as string));
    assert.match(flat(second.pages).find((page) => page.slug === 'install')?.markdown ?? '', /^Run the new installer\. !\[Diagram\]\(\/files\/\w+\)$/);

    // An older event arrives late: it changes nothing.
    docs.commit({ 'guides/faq.md': '# FAQ\n\nOld answer.' }, 'Older change');
    const skipped = await importRepo(space, { url: docs.url, timestamp: t1 });
    assert.equal(skipped.operation.state, 'failure');
    assert.match(skipped.operation.error, /^Skipped: .*older event never overwrites a newer one/);
    assert.equal((await content(space)).id, second.id);

    // Standalone: a revision of the repository, the primary content untouched.
    docs.commit({ 'README.md': '# Welcome\n\nA standalone welcome.\n\n![Logo](.gitbook/assets/logo.png)' }, 'Standalone welcome');
    const standalone = succeeded(await importRepo(space, { url: docs.url, standalone: true }));
    assert.equal((await content(space)).id, second.id);
    const snapshot = ok(await reader.api.get(`/v1/spaces/${space}/revisions/${standalone.operation.revision}`));
    assert.deepEqual(snapshot.parents, [second.id]);
    assert.match(flat(snapshot.pages)[0].markdown, /^A standalone welcome\./);
    assert.equal(flat(snapshot.pages)[0].id, ids.get('welcome'));

    // An edit made in the space and not exported yet: an import is refused unless forced.
    const cr = ok(await editor.api.post(`/v1/spaces/${space}/change-requests`, { subject: 'Edit welcome' }), 201);
    ok(
      await editor.api.post(`/v1/spaces/${space}/change-requests/${cr.id}/content?compat=false`, {
        changes: [{ operation: 'update_page', page: ids.get('welcome'), document: { markdown: 'Edited in the app.' } }],
      }),
    );
    const merged = ok(await admin.api.post(`/v1/spaces/${space}/change-requests/${cr.id}/merge`)).revision;
    const refused = await importRepo(space, { url: docs.url });
    assert.equal(refused.operation.state, 'failure');
    assert.match(refused.operation.error, /changes that were not exported/);
    const kept = await content(space);
    assert.equal(kept.id, typeof merged === 'string' ? merged : merged.id);
    assert.equal(flat(kept.pages)[0].markdown, 'Edited in the app.');
    succeeded(await importRepo(space, { url: docs.url, force: true }));
    const forced = await content(space);
    assert.match(flat(forced.pages)[0].markdown, /^A standalone welcome\./);
    assert.equal(flat(forced.pages).find((page) => page.slug === 'faq')?.markdown, 'Old answer.');
  });

  let out: TestRepo;

  it('exports the space: creates the branch, one file per page, SUMMARY.md, .gitbook.yaml, assets; no empty commits', async () => {
    out = new TestRepo(remotes, 'out');
    assert.equal(out.head(), null);
    const state = succeeded(await exportRepo(space, { url: out.url, commitMessage: 'Docs from the app' }));
    const head = out.head() as string;
    assert.equal(state.operation.commit, head);
    assert.equal(state.operation.direction, 'export');
    assert.equal(git(out.bare, 'log', '-1', '--format=%B', 'main'), 'Docs from the app');
    assert.equal(git(out.bare, 'log', '-1', '--format=%an <%ae>|%cn <%ce>', 'main'), 'Quire <git-sync@quire.invalid>|Quire <git-sync@quire.invalid>');
    assert.deepEqual(out.files().sort(), [
      '.gitbook.yaml',
      '.gitbook/assets/diagram.png',
      '.gitbook/assets/logo.png',
      '.gitbook/assets/spec.pdf',
      '.gitbook/vars.yaml',
      'SUMMARY.md',
      'guides/README.md',
      'guides/configure.md',
      'guides/faq.md',
      'guides/install.md',
      'reference/README.md',
      'reference/api.md',
      'welcome.md',
    ]);
    assert.equal(out.show('.gitbook.yaml').toString(), 'root: ./\nstructure:\n  readme: welcome.md\n  summary: SUMMARY.md\n');
    assert.equal(
      out.show('SUMMARY.md').toString(),
      '# Table of contents\n\n* [Welcome](welcome.md)\n* [Guides](guides/README.md)\n  * [Configure](guides/configure.md)\n  * [Install](guides/install.md)\n  * [FAQ](guides/faq.md)\n* [Reference](reference/README.md)\n  * [API](reference/api.md)\n',
    );
    assert.equal(out.show('guides/README.md').toString(), '---\ndescription: How to use it\nicon: 📘\n---\n\n# Guides\n\nPick a guide.\n');
    assert.equal(out.show('guides/install.md').toString(), '# Install\n\nRun the new installer. ![Diagram](../.gitbook/assets/diagram.png)\n');
    assert.equal(out.show('welcome.md').toString(), '# Welcome\n\nA standalone welcome.\n\n![Logo](.gitbook/assets/logo.png)\n');
    assert.equal(out.show('guides/configure.md').toString().split('\n').slice(0, 4).join('\n'), '---\nvars:\n  port: "8080"\n---');
    assert.ok(out.show('guides/configure.md').toString().includes('see [API](../reference/api.md)'));
    assert.ok(out.show('reference/api.md').toString().includes('{% file src="../.gitbook/assets/spec.pdf" %}'));
    assert.deepEqual(out.show('.gitbook/assets/diagram.png'), diagram);
    assert.equal(out.show('.gitbook/vars.yaml').toString(), 'product: Quire\n');

    succeeded(await exportRepo(space, { url: out.url }));
    assert.equal(out.head(), head, 'nothing changed: no new commit');
  });

  it('refuses to overwrite a diverged branch without force, overwrites it with force', async () => {
    out.pull();
    const foreign = out.commit({ 'welcome.md': '# Welcome\n\nChanged in the repository.\n', LICENSE: 'MIT\n' }, 'Edit in the repository');
    const refused = await exportRepo(space, { url: out.url });
    assert.equal(refused.operation.state, 'failure');
    assert.match(refused.operation.error, /has diverged/);
    assert.equal(out.head(), foreign);
    succeeded(await exportRepo(space, { url: out.url, force: true, commitMessage: 'Forced' }));
    const head = out.head() as string;
    assert.notEqual(head, foreign);
    assert.equal(git(out.bare, 'rev-parse', `${head}^`), foreign, 'the forced commit sits on top of the branch');
    assert.equal(out.show('welcome.md').toString(), '# Welcome\n\nA standalone welcome.\n\n![Logo](.gitbook/assets/logo.png)\n');
    assert.equal(out.show('LICENSE').toString(), 'MIT\n', 'files the export does not own stay');
  });

  it('round-trips: import → export → import gives the same tree and bodies; our own commit is createdByService', async () => {
    const original = await content(space);
    const copy = await newSpace('Round trip');
    succeeded(await importRepo(copy, { url: out.url }));
    const imported = await content(copy);
    assert.deepEqual(outline(imported.pages), outline(original.pages));
    assert.deepEqual(imported.variables, original.variables);
    // Ids differ between spaces: compare bodies with references written as paths.
    const normalize = (revision: any) => {
      const paths = new Map<string, string>();
      for (const page of flat(revision.pages)) paths.set(page.id, page.path);
      for (const file of revision.files) paths.set(file.id, file.name);
      return flat(revision.pages).map((page) => [
        page.path,
        page.markdown.replace(/\/(pages|files)\/([A-Za-z0-9]+)/g, (_: string, kind: string, id: string) => `<${kind}:${paths.get(id)}>`),
        page.description ?? '',
        page.hidden,
        page.emoji ?? '',
      ]);
    };
    assert.deepEqual(normalize(imported), normalize(original));
    assert.equal(imported.git.createdByService, false, 'the copy never exported this commit');

    // The space the commit came from reads it back as its own, with the same ids and bodies.
    const own = succeeded(await importRepo(space, { url: out.url, standalone: true }));
    const back = ok(await reader.api.get(`/v1/spaces/${space}/revisions/${own.operation.revision}`));
    assert.equal(back.git.createdByService, true);
    assert.equal(back.git.createdByGitBook, true);
    assert.deepEqual(
      flat(back.pages).map((page) => [page.id, page.title, page.slug, page.markdown]),
      flat(original.pages).map((page) => [page.id, page.title, page.slug, page.markdown]),
    );
    assert.deepEqual(back.files.map((file: any) => [file.id, file.name]).sort(), original.files.map((file: any) => [file.id, file.name]).sort());
  });

  it('reads noIndex and noRobotsIndex from front matter, writes them back when true, and round-trips them', async () => {
    const repo = new TestRepo(remotes, 'flags');
    repo.commit(
      {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Quiet](quiet.md)\n* [Shy](shy.md)\n',
        'README.md': '---\nnoIndex: false\n---\n\n# Home\n\nWelcome.\n',
        'quiet.md': '---\nnoIndex: true\nnoRobotsIndex: true\n---\n\n# Quiet\n\nNot for search.\n',
        'shy.md': '---\nhidden: true\nnoRobotsIndex: true\n---\n\n# Shy\n\nNot for robots.\n',
      },
      'Pages with indexing flags',
    );
    const spaceId = await newSpace('Flags');
    succeeded(await importRepo(spaceId, { url: repo.url }));
    const flagsOf = (revision: any) => flat(revision.pages).map((page) => [page.title, page.hidden, page.noIndex, page.noRobotsIndex]);
    const imported = await content(spaceId);
    assert.deepEqual(flagsOf(imported), [
      ['Home', false, false, false],
      ['Quiet', false, true, true],
      ['Shy', true, false, true],
    ]);
    const ids = new Map(flat(imported.pages).map((page) => [page.title, page.id]));

    const out = new TestRepo(remotes, 'flags-out');
    succeeded(await exportRepo(spaceId, { url: out.url }));
    assert.equal(out.show('home.md').toString(), '# Home\n\nWelcome.\n');
    assert.equal(out.show('quiet.md').toString(), '---\nnoIndex: true\nnoRobotsIndex: true\n---\n\n# Quiet\n\nNot for search.\n');
    assert.equal(out.show('shy.md').toString(), '---\nhidden: true\nnoRobotsIndex: true\n---\n\n# Shy\n\nNot for robots.\n');

    // Changed in the app: the next export writes what the pages now have.
    const cr = ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Flags' }), 201);
    ok(
      await editor.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
        changes: [
          { type: 'update_page', page: ids.get('Quiet'), noRobotsIndex: false },
          { type: 'update_page', page: ids.get('Home'), noIndex: true },
        ],
      }),
    );
    ok(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`));
    const edited = await content(spaceId);
    succeeded(await exportRepo(spaceId, { url: out.url }));
    assert.equal(out.show('home.md').toString(), '---\nnoIndex: true\n---\n\n# Home\n\nWelcome.\n');
    assert.equal(out.show('quiet.md').toString(), '---\nnoIndex: true\n---\n\n# Quiet\n\nNot for search.\n');

    // Imported back (into another space, and into the same one): the same flags.
    const copy = await newSpace('Flags copy');
    succeeded(await importRepo(copy, { url: out.url }));
    assert.deepEqual(flagsOf(await content(copy)), flagsOf(edited));
    succeeded(await importRepo(spaceId, { url: out.url }));
    const back = await content(spaceId);
    assert.deepEqual(flagsOf(back), flagsOf(edited));
    assert.deepEqual(
      flat(back.pages).map((page) => page.id),
      flat(edited.pages).map((page) => page.id),
    );
  });

  it("reads GitBook's layout front matter, answers it on the page, writes back what differs from the defaults, and re-imports a layout the space changed", async () => {
    // GitBook's defaults (RevisionPageLayoutOptions), which every page without a layout answers.
    const defaults = {
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
    };
    const visible = (part: string, shown: boolean) => [`  ${part}:`, `    visible: ${shown}`];
    const repo = new TestRepo(remotes, 'layouts');
    repo.commit(
      {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Landing](landing.md)\n* [Plain](plain.md)\n',
        // What GitBook writes for a page it shows as it shows every page: the defaults.
        'README.md': [
          '---',
          'layout:',
          '  width: default',
          ...visible('title', true),
          ...visible('outline', true),
          '---',
          '',
          '# Home',
          '',
          'Welcome.',
          '',
        ].join('\n'),
        'landing.md': [
          '---',
          'description: A landing page',
          'layout:',
          '  width: wide',
          '  cover:',
          '    visible: true',
          '    size: full',
          ...visible('title', true),
          ...visible('description', false),
          ...visible('tableOfContents', false),
          ...visible('outline', false),
          ...visible('pagination', false),
          ...visible('metadata', true),
          '  unknown:',
          '    visible: false',
          '---',
          '',
          '# Landing',
          '',
          '## Start',
          '',
          'Everything at once.',
          '',
        ].join('\n'),
        'plain.md': '# Plain\n\nNo front matter.\n',
      },
      'Pages with layouts',
    );
    const { spaceId, imported, ids, page } = await importedSpace('Layouts', repo.url);
    const landingLayout = {
      ...defaults,
      width: 'wide',
      cover: true,
      coverSize: 'full',
      description: false,
      tableOfContents: false,
      outline: false,
      pagination: false,
    };
    assert.deepEqual((await page('Landing')).layout, landingLayout);
    assert.deepEqual((await page('Home')).layout, defaults);
    assert.deepEqual((await page('Plain')).layout, defaults);
    const layoutsOf = (revision: any) => flat(revision.pages).map((each) => [each.title, each.layout]);
    assert.deepEqual(layoutsOf(imported), [
      ['Home', defaults],
      ['Landing', landingLayout],
      ['Plain', defaults],
    ]);

    // Written back in GitBook's shape, only where a page differs from the defaults; read back the same.
    const out = new TestRepo(remotes, 'layouts-out');
    succeeded(await exportRepo(spaceId, { url: out.url }));
    assert.equal(out.show('home.md').toString(), '# Home\n\nWelcome.\n');
    assert.equal(out.show('plain.md').toString(), '# Plain\n\nNo front matter.\n');
    assert.equal(
      out.show('landing.md').toString(),
      [
        '---',
        'description: A landing page',
        'layout:',
        '  width: wide',
        '  cover:',
        '    visible: true',
        '    size: full',
        ...visible('description', false),
        ...visible('tableOfContents', false),
        ...visible('outline', false),
        ...visible('pagination', false),
        '---',
        '',
        '# Landing',
        '',
        '## Start',
        '',
        'Everything at once.',
        '',
      ].join('\n'),
    );
    const copy = await newSpace('Layouts copy');
    succeeded(await importRepo(copy, { url: out.url }));
    assert.deepEqual(layoutsOf(await content(copy)), layoutsOf(imported));

    // Changed in the app (a change request's update_page), then the same commit imported again:
    // the layout alone differs from the repository's, and that is a change (a new revision).
    const cr = ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Layout' }), 201);
    for (const layout of [{ width: 'narrow' }, { coverMask: 'radial' }]) {
      const refused = await editor.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
        changes: [{ type: 'update_page', page: ids.get('Landing'), layout }],
      });
      assertError(refused, 400, 'layout');
    }
    ok(
      await editor.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
        changes: [{ type: 'update_page', page: ids.get('Landing'), layout: { outline: true, width: 'default' } }],
      }),
    );
    ok(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`));
    const edited = await content(spaceId);
    assert.deepEqual((await page('Landing')).layout, { ...landingLayout, outline: true, width: 'default' });
    succeeded(await importRepo(spaceId, { url: repo.url, force: true }));
    const reimported = await content(spaceId);
    assert.notEqual(reimported.id, edited.id);
    assert.deepEqual(layoutsOf(reimported), layoutsOf(imported));
    const updatedAt = (revision: any, title: string) => flat(revision.pages).find((each) => each.title === title)?.updatedAt;
    assert.equal(updatedAt(reimported, 'Home'), updatedAt(edited, 'Home'), 'an unchanged page keeps its date');
    assert.ok(updatedAt(reimported, 'Landing') > updatedAt(edited, 'Landing'));
  });

  it("reads GitBook's cover front matter (a file or an address, coverY), answers it on the page, writes it back, and takes covers from change requests", async () => {
    const repo = new TestRepo(remotes, 'covers');
    repo.commit(
      {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guides](guides/README.md)\n  * [Remote](guides/remote.md)\n  * [Lost](guides/lost.md)\n',
        // GitBook's older files: a cover and no layout, shown.
        'README.md': '---\ncover: .gitbook/assets/hero.png\ncoverY: 42\n---\n\n# Home\n\nWelcome.\n',
        'guides/README.md': '---\ncover: ../.gitbook/assets/hero.png\nlayout:\n  cover:\n    visible: true\n    size: full\n---\n\n# Guides\n',
        'guides/remote.md': '---\ncover: https://images.example.com/remote.jpg\nlayout:\n  cover:\n    visible: false\n---\n\n# Remote\n',
        'guides/lost.md': '---\ncover: ../.gitbook/assets/missing.png\n---\n\n# Lost\n',
        '.gitbook/assets/hero.png': png,
      },
      'Pages with covers',
    );
    const { spaceId, imported, ids, page } = await importedSpace('Covers', repo.url);
    const files = ok(await reader.api.get(`/v1/spaces/${spaceId}/content/files`));
    const hero = files.items.find((file: any) => file.name === 'hero.png');
    assert.ok(hero, 'the cover is one of the files');
    const shown = async (title: string) => {
      const { cover, layout } = await page(title);
      return [cover, layout.cover, layout.coverSize];
    };
    assert.deepEqual(await shown('Home'), [{ ref: { kind: 'file', file: hero.id }, yPos: 42 }, true, 'hero']);
    assert.deepEqual(await shown('Guides'), [{ ref: { kind: 'file', file: hero.id }, yPos: 0 }, true, 'full']);
    assert.deepEqual(await shown('Remote'), [{ ref: { kind: 'url', url: 'https://images.example.com/remote.jpg' }, yPos: 0 }, false, 'hero']);
    assert.deepEqual(await shown('Lost'), [undefined, false, 'hero'], 'a cover that is not in the repository is no cover');

    // Written back beside the pages, whether each shows said; read back the same.
    const out = new TestRepo(remotes, 'covers-out');
    succeeded(await exportRepo(spaceId, { url: out.url }));
    assert.equal(
      out.show('home.md').toString(),
      '---\ncover: .gitbook/assets/hero.png\ncoverY: 42\nlayout:\n  cover:\n    visible: true\n---\n\n# Home\n\nWelcome.\n',
    );
    assert.match(
      out.show('guides/README.md').toString(),
      /^---\ncover: \.\.\/\.gitbook\/assets\/hero\.png\ncoverY: 0\nlayout:\n  cover:\n    visible: true\n    size: full\n---/,
    );
    assert.match(
      out.show('guides/remote.md').toString(),
      /^---\ncover: https:\/\/images\.example\.com\/remote\.jpg\ncoverY: 0\nlayout:\n  cover:\n    visible: false\n---/,
    );
    const copy = await newSpace('Covers copy');
    succeeded(await importRepo(copy, { url: out.url }));
    const coversOf = (revision: any) =>
      flat(revision.pages).map((each) => [each.title, each.cover?.ref.kind ?? null, each.cover?.yPos ?? null, each.layout.cover]);
    assert.deepEqual(coversOf(await content(copy)), coversOf(imported));

    // A change request sets a cover (a file it inserts, by ref: shown), moves one, removes one.
    const cr = ok(await editor.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Covers' }), 201);
    const changes = (list: unknown[]) => editor.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, { changes: list });
    ok(
      await changes([
        { type: 'insert_files', files: [{ ref: 'banner', name: 'banner.png', contentType: 'image/png', data: png.toString('base64') }] },
        { type: 'update_page', page: ids.get('Lost'), cover: { ref: { kind: 'file', file: 'banner' } } },
        {
          type: 'update_page',
          page: ids.get('Home'),
          cover: { ref: { kind: 'file', file: hero.id }, refDark: { kind: 'url', url: 'https://images.example.com/dark.jpg' }, yPos: -10 },
        },
        { type: 'update_page', page: ids.get('Remote'), cover: null },
      ]),
    );
    const fileOf = async (name: string) =>
      ok(await reader.api.get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/files`)).items.find((file: any) => file.name === name).id;
    const banner = await fileOf('banner.png');
    const edited = async (title: string) => {
      const answer = ok(await reader.api.get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${ids.get(title)}`));
      return [answer.cover, answer.layout.cover];
    };
    assert.deepEqual(await edited('Lost'), [{ ref: { kind: 'file', file: banner }, yPos: 0 }, true]);
    assert.deepEqual(await edited('Home'), [
      { ref: { kind: 'file', file: hero.id }, refDark: { kind: 'url', url: 'https://images.example.com/dark.jpg' }, yPos: -10 },
      true,
    ]);
    assert.deepEqual(await edited('Remote'), [undefined, false]);
    // Refused, naming the field: a file the content lacks, one that is not an image, an address that is not http(s).
    ok(await changes([{ type: 'insert_files', files: [{ ref: 'sheet', name: 'sheet.pdf', contentType: 'application/pdf', data: pdf.toString('base64') }] }]));
    const sheet = await fileOf('sheet.pdf');
    for (const [cover, field] of [
      [{ ref: { kind: 'file', file: 'no-such-file' } }, 'changes.0.cover.ref.file'],
      [{ ref: { kind: 'file', file: hero.id }, refDark: { kind: 'file', file: 'no-such-file' } }, 'changes.0.cover.refDark.file'],
      [{ ref: { kind: 'file', file: sheet } }, 'changes.0.cover.ref.file'],
      [{ ref: { kind: 'url', url: 'javascript:alert(1)' } }, 'cover.ref.url'],
      [{ ref: { kind: 'page', page: ids.get('Home') } }, 'cover.ref'],
    ] as const) {
      assertError(await changes([{ type: 'update_page', page: ids.get('Home'), cover }]), 400, field);
    }
    ok(await admin.api.post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`));
    assert.deepEqual((await page('Lost')).cover, { ref: { kind: 'file', file: banner }, yPos: 0 });
  });

  it('exports over an imported repository: replaces its page files, keeps markdown that is not a page', async () => {
    const repo = new TestRepo(remotes, 'keep');
    repo.commit(
      {
        'SUMMARY.md': '# Table of contents\n\n* [Keep](README.md)\n* [Guide](guide.md)\n',
        'README.md': '# Keep\n\nHome.\n',
        'guide.md': '# Guide\n\nText.\n',
        'CONTRIBUTING.md': '# Contributing\n\nNot in the table of contents.\n',
        'notes/todo.md': '# Todo\n',
      },
      'Docs with other markdown',
    );
    const spaceId = await newSpace('Keep');
    succeeded(await importRepo(spaceId, { url: repo.url }));
    assert.deepEqual(outline((await content(spaceId)).pages), [
      ['Keep', 'keep', []],
      ['Guide', 'guide', []],
    ]);
    succeeded(await exportRepo(spaceId, { url: repo.url }));
    assert.deepEqual(repo.files().sort(), ['.gitbook.yaml', 'CONTRIBUTING.md', 'SUMMARY.md', 'guide.md', 'keep.md', 'notes/todo.md']);
    assert.equal(repo.show('CONTRIBUTING.md').toString(), '# Contributing\n\nNot in the table of contents.\n');
    succeeded(await importRepo(spaceId, { url: repo.url }));
    assert.deepEqual(outline((await content(spaceId)).pages), [
      ['Keep', 'keep', []],
      ['Guide', 'guide', []],
    ]);
  });

  it('reads a hostile repository as data: symlinks and paths leaving it are not followed, a root leaving it fails', async () => {
    const repo = new TestRepo(remotes, 'hostile');
    mkdirSync(path.join(repo.work, 'docs'), { recursive: true });
    symlinkSync('/etc/passwd', path.join(repo.work, 'docs/secret.md'));
    symlinkSync('/etc', path.join(repo.work, 'docs/system'));
    repo.commit(
      {
        'SUMMARY.md':
          '* [Home](README.md)\n* [Secret](docs/secret.md)\n* [System](docs/system/passwd.md)\n* [Up](../../../../etc/passwd.md)\n* [Absolute](/etc/passwd)\n',
        'README.md': '# Home\n\n[up](../../../../etc/passwd) ![abs](/etc/passwd) [secret](docs/secret.md) ![sys](docs/system/hostname)\n',
      },
      'Hostile',
    );
    assert.equal(git(repo.bare, 'ls-tree', 'main', 'docs/secret.md').split(' ')[0], '120000', 'the test commits a real symlink');
    const spaceId = await newSpace('Hostile');
    succeeded(await importRepo(spaceId, { url: repo.url }));
    const revision = await content(spaceId);
    const pages = flat(revision.pages);
    assert.deepEqual(
      pages.map((page) => [page.title, page.git?.path ?? null, page.markdown]),
      [
        ['Home', 'README.md', '[up](../../../../etc/passwd) ![abs](/etc/passwd) [secret](docs/secret.md) ![sys](docs/system/hostname)'],
        ['Secret', null, ''],
        ['System', null, ''],
        ['Absolute', null, ''],
      ],
    );
    assert.deepEqual(revision.files, []);
    const passwd = readFileSync('/etc/passwd', 'utf8').split('\n')[0];
    assert.ok(passwd && !JSON.stringify(revision).includes(passwd), "nothing of the server's files is read");

    repo.commit({ '.gitbook.yaml': 'root: ../../\n' }, 'Root outside');
    const escaped = await importRepo(spaceId, { url: repo.url });
    assert.equal(escaped.operation.state, 'failure');
    assert.match(escaped.operation.error, /root leaves the repository/);
    assert.equal((await content(spaceId)).id, revision.id);

    // A layout inside .git: refused on import, replaced by the default one on export (git
    // refuses to check out such paths, so writing them would break every clone).
    repo.commit({ '.gitbook.yaml': 'root: ./.git/hooks/\nstructure:\n  summary: post-checkout\n' }, 'Root in .git');
    const inGit = await importRepo(spaceId, { url: repo.url });
    assert.equal(inGit.operation.state, 'failure');
    assert.match(inGit.operation.error, /cannot be inside a \.git directory/);
    succeeded(await exportRepo(spaceId, { url: repo.url, force: true }));
    assert.deepEqual(
      repo.files().filter((file) => file.toLowerCase().split('/').includes('.git')),
      [],
    );
    assert.equal(repo.show('.gitbook.yaml').toString(), 'root: ./\nstructure:\n  readme: home.md\n  summary: SUMMARY.md\n');
  });

  it('holds an imported repository to the limits of content: file size, page length, variables', async () => {
    const repo = new TestRepo(remotes, 'limits');
    const spaceId = await newSpace('Limits');
    const refused = async (files: Files, error: RegExp) => {
      repo.commit(files, 'Over a limit');
      const state = await importRepo(spaceId, { url: repo.url });
      assert.equal(state.operation.state, 'failure', JSON.stringify(state.operation));
      assert.match(state.operation.error, error);
    };
    await refused(
      { 'README.md': '# Home\n\n![big](images/big.png)\n', 'images/big.png': Buffer.alloc(5 * 1024 * 1024 + 1, 7) },
      /images\/big\.png: the file is larger than 5242880 bytes/,
    );
    await refused({ 'README.md': '---\nvars:\n  my-var: x\n---\n# Home\n', 'images/big.png': null }, /README\.md front matter vars: "my-var": a variable name/);
    await refused({ 'README.md': '# Home\n', '.gitbook/vars.yaml': `long: ${'v'.repeat(300)}\n` }, /\.gitbook\/vars\.yaml: long: at most 256 characters/);
    await refused({ '.gitbook/vars.yaml': null, 'long.md': `# Long\n\n${'word '.repeat(200_001)}\n` }, /long\.md: the page is longer than 1000000 characters/);
    assert.deepEqual((await content(spaceId)).pages, [], 'nothing of a refused import is applied');
  });

  it('syncs over smart HTTP with basic-auth credentials that never appear in git info, errors or logs', async () => {
    const repo = new TestRepo(httpRoot, 'private');
    repo.commit({ 'README.md': '# Private\n\nSecret docs.', 'SUMMARY.md': '* [Private](README.md)\n' }, 'Private docs');
    const address = `${server.url}/private.git`;
    const withAuth = (secret: string) => address.replace('http://', `http://${username}:${encodeURIComponent(secret)}@`);
    const spaceId = await newSpace('Private');
    const state = succeeded(await importRepo(spaceId, { url: withAuth(password) }));
    assert.equal(state.url, address);
    assert.equal(state.repoName, 'private');
    assert.equal(flat((await content(spaceId)).pages)[0].markdown, 'Secret docs.');

    const bad = await importRepo(spaceId, { url: withAuth(wrongPassword) });
    assert.equal(bad.operation.state, 'failure');
    assert.equal(bad.operation.error, 'authentication failed');
    assert.ok(server.unauthorized() > 0);

    const pushed = succeeded(await exportRepo(spaceId, { url: withAuth(password), ref: 'refs/heads/published', commitMessage: 'Publish' }));
    assert.equal(repo.head('published'), pushed.operation.commit);

    const everything = JSON.stringify([state, bad, pushed, await content(spaceId)]) + stack.output();
    for (const secret of [password, wrongPassword, encodeURIComponent(password)]) assert.ok(!everything.includes(secret), 'a credential leaked');
  });

  it("records generic reasons, never git's own words, and follows no redirect", async () => {
    // git's text would tell files from folders and open ports from closed ones: git info says neither.
    const folder = mkdtempSync(path.join(workRoot, 'not-a-repo-'));
    writeFileSync(path.join(folder, 'file.txt'), 'x');
    const listener = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    const closed = new Promise<void>((resolve) => listener.once('close', resolve));
    const spaceId = await newSpace('Reasons');
    const reasons: string[] = [];
    try {
      for (const url of [folder, path.join(folder, 'file.txt'), path.join(folder, 'missing')].map((file) => pathToFileURL(file).href)) {
        reasons.push((await importRepo(spaceId, { url })).operation.error);
      }
      reasons.push((await importRepo(spaceId, { url: `http://127.0.0.1:${port}/x.git` })).operation.error);
    } finally {
      listener.close();
      await closed;
    }
    // The same port, closed now.
    reasons.push((await importRepo(spaceId, { url: `http://127.0.0.1:${port}/x.git` })).operation.error);
    assert.deepEqual(reasons, Array(5).fill('failed to reach the repository'));

    // A redirect leads to an address nobody checked: it is not followed, even to a repository that works.
    const anonymous = await startGitHttpServer({ projectRoot: httpRoot });
    const redirect = await startRedirectServer(anonymous.url);
    try {
      new TestRepo(httpRoot, 'moved').commit({ 'README.md': '# Moved' }, 'Moved');
      succeeded(await importRepo(await newSpace('Moved'), { url: `${anonymous.url}/moved.git` }));
      const served = anonymous.requests();
      const redirected = await importRepo(spaceId, { url: `${redirect.url}/moved.git` });
      assert.equal(redirected.operation.state, 'failure');
      assert.equal(redirected.operation.error, 'failed to reach the repository');
      assert.ok(redirect.requests() > 0);
      assert.equal(anonymous.requests(), served, 'the redirect target was never asked');
    } finally {
      await redirect.close();
      await anonymous.close();
    }
  });

  it('bounds a job: a repository over GIT_MAX_FILES fails, a stalled fetch times out, a lost job ends as failed; no work directory stays', async () => {
    const big = new TestRepo(remotes, 'big');
    big.commit(Object.fromEntries(Array.from({ length: 401 }, (_, i) => [`pages/p${i}.md`, `# Page ${i}`])), 'Too many files');
    const spaceId = await newSpace('Bounds');
    const tooLarge = await importRepo(spaceId, { url: big.url });
    assert.equal(tooLarge.operation.state, 'failure');
    assert.match(tooLarge.operation.error, /too large: .*more than 400 files/);

    // Two stalled fetches hold both worker slots (GIT_WORKER_CONCURRENCY 2) of the service.
    const slow = `${server.url}/slow.git`.replace('http://', `http://${username}:${password}@`);
    const otherSlow = await newSpace('Bounds 2');
    for (const target of [spaceId, otherSlow]) ok(await editor.api.post(`/v1/spaces/${target}/git/import`, { url: slow, ref: 'refs/heads/main' }), 204);
    for (let attempt = 0; server.held() < 2; attempt += 1) {
      assert.ok(attempt < 1_200, 'the stalled fetches did not start');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const workDirs = () => [...readdirSync(serviceTmp)].filter((name) => name.startsWith('quire-git-'));
    assert.equal(workDirs().length, 2, 'each running operation works in its own directory');
    // Meanwhile a job leaves the queue without its outcome recorded, as when its worker dies
    // past BullMQ's stall limit: here a worker of the test takes it and drops it.
    const queue = createJobQueue<Record<string, unknown>, unknown>('content-git-sync', {
      redisUrl: String(stack.processEnv.REDIS_URL),
      prefix: String(stack.processEnv.REDIS_PREFIX),
      logger: createLogger('git-test', 'silent'),
    });
    let dropped: Record<string, unknown> | undefined;
    const taken = new Promise<void>((resolve) => {
      queue.work(async (job) => {
        dropped = job.data;
        resolve();
        return null;
      });
    });
    const lost = await newSpace('Lost');
    ok(await editor.api.post(`/v1/spaces/${lost}/git/import`, { url: slow, ref: 'refs/heads/main' }), 204);
    await taken;
    await queue.close();
    const payload = JSON.stringify(dropped);
    assert.equal(dropped?.url, `${server.url}/slow.git`);
    assert.ok(
      !payload.includes(password) && !payload.includes(encodeURIComponent(password)) && !payload.includes(username),
      'the queued job carries credentials only sealed',
    );
    const lostState = await settle(lost);
    assert.equal(lostState.operation.state, 'failure');
    assert.match(lostState.operation.error, /interrupted/);
    assert.ok(lostState.operation.endedAt);

    const stalled = await settle(spaceId);
    assert.equal(stalled.operation.state, 'timeout');
    assert.match(stalled.operation.error, /did not finish within 10 s/);
    assert.equal((await settle(otherSlow)).operation.state, 'timeout');
    assert.deepEqual((await content(spaceId)).pages, [], 'failed runs leave no content behind');
    // Every operation so far ended (successes, failures, timeouts): none left its directory.
    assert.deepEqual(workDirs(), []);
  });

  it('validates input (400 naming the field), checks roles (403) and visibility (404), and removes the state idempotently', async () => {
    const target = `/v1/spaces/${space}/git`;
    const body = { url: docs.url, ref: 'refs/heads/main' };
    assertError(await editor.api.post(`${target}/import`, { ref: 'refs/heads/main' }), 400, 'url');
    assertError(await editor.api.post(`${target}/import`, { ...body, ref: 'main' }), 400, 'ref');
    assertError(await editor.api.post(`${target}/import`, { ...body, ref: 'refs/heads/a..b' }), 400, 'ref');
    assertError(await editor.api.post(`${target}/import`, { ...body, url: 'not an address' }), 400, 'url');
    const ftp = await editor.api.post(`${target}/import`, { ...body, url: 'ftp://user:hunter22@example.test/repo.git' });
    assertError(ftp, 400, 'url');
    assert.ok(!JSON.stringify(ftp.body).includes('hunter22'));
    assertError(await editor.api.post(`${target}/import`, { ...body, repoProjectDirectory: '../up' }), 400, 'repoProjectDirectory');
    assertError(
      await editor.api.post(`${target}/export`, { ...body, commitMessage: 'x', repoProjectDirectory: 'docs/.GIT/hooks' }),
      400,
      'repoProjectDirectory',
    );
    assertError(await editor.api.post(`${target}/import`, { ...body, timestamp: 'yesterday' }), 400, 'timestamp');
    assertError(await editor.api.post(`${target}/import`, { ...body, force: 'yes' }), 400, 'force');
    assertError(await editor.api.post(`${target}/import`, { ...body, repoTreeURL: 'javascript:alert(1)' }), 400, 'repoTreeURL');
    // Addresses shown to readers (git info, Space.gitSync, commit and file links) never carry credentials.
    for (const [field, extra] of [
      ['repoTreeURL', { repoTreeURL: 'https://bot:hunter22@git.example.test/acme/docs/tree/main' }],
      ['repoCommitURL', { repoCommitURL: 'https://bot:hunter22@git.example.test/acme/docs/commit/' }],
      ['gitInfo.url', { gitInfo: { provider: 'github', url: 'https://hunter22@git.example.test/acme/docs' } }],
    ] as const) {
      const response = await editor.api.post(`${target}/import`, { ...body, ...extra });
      assertError(response, 400, field);
      assert.match(response.body.error.message, /must not contain credentials/);
      assert.ok(!JSON.stringify(response.body).includes('hunter22'));
    }
    // A timestamp from the future would make every later event look older.
    assertError(await editor.api.post(`${target}/import`, { ...body, timestamp: new Date(Date.now() + 3_600_000).toISOString() }), 400, 'timestamp');
    assertError(await editor.api.post(`${target}/export`, body), 400, 'commitMessage');
    assertError(await editor.api.post(`${target}/export`, { ...body, commitMessage: 'x', ref: 'refs/tags/v1' }), 400, 'ref');

    assertError(await reader.api.post(`${target}/import`, body), 403);
    assertError(await reader.api.post(`${target}/export`, { ...body, commitMessage: 'x' }), 403);
    assertError(await reader.api.delete(`${target}/legacy-installation`), 403);
    assertMatchesOpenApi('GitSyncState', ok(await reader.api.get(`${target}/info`)));

    for (const caller of [guest, outsider]) {
      assertError(await caller.api.post(`${target}/import`, body), 404);
      assertError(await caller.api.post(`${target}/export`, { ...body, commitMessage: 'x' }), 404);
      assertError(await caller.api.get(`${target}/info`), 404);
      assertError(await caller.api.delete(`${target}/legacy-installation`), 404);
    }
    assertError(await editor.api.get('/v1/spaces/unknown-space/git/info'), 404);
    assertError(await editor.api.post('/v1/spaces/unknown-space/git/import', body), 404);

    ok(await editor.api.delete(`${target}/legacy-installation`), 204);
    assertError(await reader.api.get(`${target}/info`), 404);
    ok(await editor.api.delete(`${target}/legacy-installation`), 204);
  });
});
