import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { GitBookAPI } from '@gitbook/api';
import { assertMatchesOpenApi, startTestStack, type TestAccount, type TestStack } from '@quire/testkit';
import { startGitHttpServer, type GitHttpServer } from './git-http-server';

/**
 * Git import and export through the gateway, against real git: bare repositories over
 * file:// made by the test, and a smart-HTTP server requiring basic auth.
 */

type Files = Record<string, string | Buffer | null>;

let workRoot: string;
const gitEnv = () => ({
  PATH: process.env.PATH,
  HOME: workRoot,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_AUTHOR_NAME: 'Writer',
  GIT_AUTHOR_EMAIL: 'writer@example.test',
  GIT_COMMITTER_NAME: 'Writer',
  GIT_COMMITTER_EMAIL: 'writer@example.test',
});
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8', stdio: 'pipe' }).trim();
const gitBytes = (cwd: string, ...args: string[]): Buffer => execFileSync('git', args, { cwd, env: gitEnv(), stdio: 'pipe' });

/** A bare repository (the remote) and a working clone the test commits from. */
class TestRepo {
  readonly bare: string;
  readonly work: string;

  constructor(root: string, readonly name: string) {
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
  'guides/install.md': '---\ntitle: Installation\nhidden: true\n---\n\n# Install\n\n## Steps\n\nRun the installer. ![Diagram](../images/diagram.png)\n\nBack to [the start](../README.md).\n',
  'guides/configure.md': '---\nvars:\n  port: "8080"\n---\n# Configure\n\nSet `port` in `config.yaml`: see [API](../reference/api.md).\n\n```md\n[not a link](../README.md)\n```\n',
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
  const username = 'sync-bot';
  const password = `Tr0ub4dor&3-${randomBytes(6).toString('hex')}`;
  const wrongPassword = `wrong-${randomBytes(6).toString('hex')}`;

  const ok = <T extends { status: number; body: any }>(response: T, status = 200): T['body'] => {
    assert.equal(response.status, status, JSON.stringify(response.body));
    return response.body;
  };
  const assertError = (response: { status: number; body: any }, status: number, field?: string) => {
    assert.equal(response.status, status, JSON.stringify(response.body));
    assert.equal(response.body.error.code, status);
    if (field) assert.ok(response.body.error.message.includes(field), response.body.error.message);
  };
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
  const exportRepo = async (spaceId: string, body: Record<string, unknown>) => {
    ok(await editor.api.post(`/v1/spaces/${spaceId}/git/export`, { ref: 'refs/heads/main', commitMessage: 'Update from Quire', ...body }), 204);
    return settle(spaceId);
  };
  const succeeded = (state: any) => {
    assert.equal(state.operation.state, 'success', JSON.stringify(state.operation));
    return state;
  };

  before(async () => {
    workRoot = mkdtempSync(path.join(os.tmpdir(), 'quire-git-test-'));
    remotes = path.join(workRoot, 'remotes');
    httpRoot = path.join(workRoot, 'http');
    mkdirSync(remotes);
    mkdirSync(httpRoot);
    server = await startGitHttpServer({ projectRoot: httpRoot, username, password, hold: /slow/ });
    stack = await startTestStack({ LOG_LEVEL: 'info', GIT_OPERATION_TIMEOUT_MS: '10000', GIT_MAX_FILES: '400' });
    admin = await stack.account(['bootstrap', '--email', 'ada@acme.test', '--org', 'Acme']);
    orgId = admin.organizationId;
    editor = await stack.account(['add-member', '--org', orgId, '--email', 'ed@acme.test', '--role', 'edit']);
    reader = await stack.account(['add-member', '--org', orgId, '--email', 'rita@acme.test', '--role', 'read']);
    guest = await stack.account(['add-member', '--org', orgId, '--email', 'gus@elsewhere.test', '--role', 'guest']);
    outsider = await stack.account(['bootstrap', '--email', 'eve@other.test', '--org', 'Other']);
  });

  after(async () => {
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
      ['Guides', 'guides', [['Installation', 'install', []], ['Configure', 'configure', []]]],
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
    const [welcome, guides, install, configure, reference, api] = ['welcome', 'guides', 'install', 'configure', 'reference', 'api'].map((slug) => pages.get(slug) as PageNode);
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
    for (const [name, bytes] of [['logo.png', png], ['diagram.png', diagram], ['spec.pdf', pdf]] as const) {
      assert.deepEqual(Buffer.from(await (await fetch(files.get(name).downloadURL)).arrayBuffer()), bytes, name);
    }

    assert.equal(welcome.markdown, `Start with the [install guide](/pages/${install.id}#steps).\n\n![Logo](/files/${files.get('logo.png').id})`);
    assert.equal(install.markdown, `## Steps\n\nRun the installer. ![Diagram](/files/${files.get('diagram.png').id})\n\nBack to [the start](/pages/${welcome.id}).`);
    assert.ok(configure.markdown.includes(`see [API](/pages/${api.id})`));
    assert.ok(configure.markdown.includes('[not a link](../README.md)'), 'code blocks are left alone');
    assert.ok(api.markdown.includes(`{% file src="/files/${files.get('spec.pdf').id}" %}`));
    const links = ok(await reader.api.get(`/v1/spaces/${space}/links`));
    assert.equal(links.stats.broken.total, 0, JSON.stringify(links.items));
    firstIds = new Map(flat(revision.pages).map((page) => [page.slug, page.id]));
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
    assert.deepEqual(target.files().filter((file) => file.endsWith('.md')).sort(), ['SUMMARY.md', 'next.md', 'ordered.md'], 'the export ran after the import');
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
        'SUMMARY.md': String(DOCS['SUMMARY.md']).replace('  * [Install](guides/install.md)\n  * [Configure](guides/configure.md)', '  * [Configure](guides/configure.md)\n  * [Install](guides/install.md)\n  * [FAQ](guides/faq.md)'),
        'guides/install.md': '# Install\n\nRun the new installer. ![Diagram](../images/diagram.png)\n',
        'guides/faq.md': '# FAQ\n\nAsk.',
      },
      'Reorder and add a FAQ',
    );
    succeeded(await importRepo(space, { url: docs.url, timestamp: t2 }));
    const second = await content(space);
    assert.deepEqual(outline(second.pages)[1], ['Guides', 'guides', [['Configure', 'configure', []], ['Install', 'install', []], ['FAQ', 'faq', []]]]);
    const ids = new Map(flat(second.pages).map((page) => [page.slug, page.id]));
    for (const slug of ['welcome', 'guides', 'configure', 'install', 'reference', 'api']) assert.equal(ids.get(slug), firstIds.get(slug), `${slug} keeps its id`);
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
    ok(await editor.api.post(`/v1/spaces/${space}/change-requests/${cr.id}/content?compat=false`, { changes: [{ operation: 'update_page', page: ids.get('welcome'), document: { markdown: 'Edited in the app.' } }] }));
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
      return flat(revision.pages).map((page) => [page.path, page.markdown.replace(/\/(pages|files)\/([A-Za-z0-9]+)/g, (_: string, kind: string, id: string) => `<${kind}:${paths.get(id)}>`), page.description ?? '', page.hidden, page.emoji ?? '']);
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
    assert.match(bad.operation.error, /Authentication failed|401/i);
    assert.ok(server.unauthorized() > 0);

    const pushed = succeeded(await exportRepo(spaceId, { url: withAuth(password), ref: 'refs/heads/published', commitMessage: 'Publish' }));
    assert.equal(repo.head('published'), pushed.operation.commit);

    const everything = JSON.stringify([state, bad, pushed, await content(spaceId)]) + stack.output();
    for (const secret of [password, wrongPassword, encodeURIComponent(password)]) assert.ok(!everything.includes(secret), 'a credential leaked');
  });

  it('bounds a job: a repository over GIT_MAX_FILES fails, a stalled fetch times out', async () => {
    const big = new TestRepo(remotes, 'big');
    big.commit(Object.fromEntries(Array.from({ length: 401 }, (_, i) => [`pages/p${i}.md`, `# Page ${i}`])), 'Too many files');
    const spaceId = await newSpace('Bounds');
    const tooLarge = await importRepo(spaceId, { url: big.url });
    assert.equal(tooLarge.operation.state, 'failure');
    assert.match(tooLarge.operation.error, /too large: .*more than 400 files/);
    const stalled = await importRepo(spaceId, { url: `${server.url}/slow.git`.replace('http://', `http://${username}:${password}@`) });
    assert.equal(stalled.operation.state, 'timeout');
    assert.match(stalled.operation.error, /did not finish within 10 s/);
    assert.deepEqual((await content(spaceId)).pages, [], 'failed runs leave no content behind');
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
    assertError(await editor.api.post(`${target}/import`, { ...body, timestamp: 'yesterday' }), 400, 'timestamp');
    assertError(await editor.api.post(`${target}/import`, { ...body, force: 'yes' }), 400, 'force');
    assertError(await editor.api.post(`${target}/import`, { ...body, repoTreeURL: 'javascript:alert(1)' }), 400, 'repoTreeURL');
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
