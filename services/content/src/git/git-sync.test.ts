import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from '@jest/globals';
import { normalizeRepoPath, resolveRepoHref } from './layout';
import { parsePageFile, parseSummary, renderPageFile, rewriteLinks } from './markdown';
import { parseRemote, RemoteUrlError, openCredentials, scrubSecrets, sealCredentials } from './remote';
import { startGitHttpServer } from '../test/git-http-server';
import { GitSyncError } from './errors';
import { ADDRESS_REFUSED, pinRepositoryHost } from './repository-address';
import { fetchBranch, GIT_FAILURES, GitCommandError, withGitSession } from './runner';

describe('git sync: page files', () => {
  it('reads front matter, the leading heading and the body, and writes them back the same', () => {
    const file = '---\ndescription: About\nicon: 🚀\nhidden: true\nvars:\n  port: 80\n---\n\n# Title\n\nBody line.\r\n\nMore.\n';
    const parsed = parsePageFile(file, 'a.md');
    assert.deepEqual(parsed.meta, { description: 'About', hidden: true, emoji: '🚀', variables: { port: '80' } });
    assert.equal(parsed.heading, 'Title');
    assert.equal(parsed.body, 'Body line.\n\nMore.');
    const written = renderPageFile({ title: 'Title', description: 'About', hidden: true, emoji: '🚀', variables: { port: '80' } }, parsed.body);
    assert.deepEqual(parsePageFile(written, 'a.md'), parsed);
  });

  it('reads and writes the indexing flags (noIndex, noRobotsIndex) in front matter, only when true', () => {
    const parsed = parsePageFile('---\nnoIndex: true\nnoRobotsIndex: true\n---\n\n# Quiet\n\nText.\n', 'q.md');
    assert.deepEqual(parsed.meta, { noIndex: true, noRobotsIndex: true });
    const written = renderPageFile({ title: 'Quiet', description: '', hidden: false, noIndex: true, noRobotsIndex: true, emoji: '' }, parsed.body);
    assert.equal(written, '---\nnoIndex: true\nnoRobotsIndex: true\n---\n\n# Quiet\n\nText.\n');
    assert.deepEqual(parsePageFile(written, 'q.md'), parsed);
    assert.deepEqual(parsePageFile('---\nnoIndex: false\nnoRobotsIndex: "yes"\n---\ntext', 'r.md').meta, { noIndex: false });
    assert.equal(renderPageFile({ title: 'Loud', description: '', hidden: false, noIndex: false, emoji: '' }, 'Text.'), '# Loud\n\nText.\n');
  });

  it("reads GitBook's layout front matter (bad values and unknown keys ignored) and writes back only the options that differ from the defaults", () => {
    const gitbook = [
      '---',
      'layout:',
      '  width: wide',
      '  cover:',
      '    visible: true',
      '    size: full',
      '  title:',
      '    visible: true',
      '  description:',
      '    visible: false',
      '  tableOfContents:',
      '    visible: false',
      '  outline:',
      '    visible: "no"',
      '  pagination: false',
      '  sidebar:',
      '    visible: false',
      '---',
      '# Wide',
      '',
      'Text.',
    ].join('\n');
    const parsed = parsePageFile(gitbook, 'w.md');
    assert.deepEqual(parsed.meta, { layout: { width: 'wide', cover: true, coverSize: 'full', title: true, description: false, tableOfContents: false } });
    // The page holds what differs from the defaults (setPageLayout): that is what an export writes.
    const layout = { width: 'wide', cover: true, coverSize: 'full', description: false, tableOfContents: false } as const;
    const written = renderPageFile({ title: 'Wide', description: '', hidden: false, emoji: '', layout }, parsed.body);
    assert.equal(
      written,
      '---\nlayout:\n  width: wide\n  cover:\n    visible: true\n    size: full\n  description:\n    visible: false\n  tableOfContents:\n    visible: false\n---\n\n# Wide\n\nText.\n',
    );
    assert.deepEqual(parsePageFile(written, 'w.md').meta, { layout });
    assert.deepEqual(parsePageFile('---\nlayout: landing\n---\ntext', 'l.md').meta, {});
    assert.deepEqual(parsePageFile('---\nlayout:\n  width: narrow\n  cover: true\n---\ntext', 'n.md').meta, {});
    assert.equal(renderPageFile({ title: 'Plain', description: '', hidden: false, emoji: '' }, 'Text.'), '# Plain\n\nText.\n');
  });

  it('ignores icon names (pages only have emoji) and names the file of invalid front matter', () => {
    assert.deepEqual(parsePageFile('---\nicon: book-open\n---\ntext', 'b.md').meta, {});
    assert.throws(() => parsePageFile('---\n: [\n---\n', 'docs/b.md'), /docs\/b\.md front matter: invalid YAML/);
  });
});

describe('git sync: links', () => {
  it('rewrites link, image, reference, HTML and block destinations, never inside code', () => {
    const markdown = [
      '[a](one.md) ![b](<img one.png> "t") `[c](two.md)` [d](#anchor)',
      '[ref]: three.md',
      '<img src="four.png"> {% file src="five.pdf" %}',
      '```',
      '[e](six.md)',
      '```',
    ].join('\n');
    const seen: string[] = [];
    const out = rewriteLinks(markdown, (href) => {
      seen.push(href);
      return href.startsWith('#') ? null : `/x/${href}`;
    });
    assert.deepEqual(seen, ['one.md', 'img one.png', '#anchor', 'three.md', 'four.png', 'five.pdf']);
    assert.equal(out.split('\n')[0], '[a](/x/one.md) ![b](</x/img one.png> "t") `[c](two.md)` [d](#anchor)');
    assert.ok(out.includes('[ref]: /x/three.md') && out.includes('src="/x/four.png"') && out.includes('src="/x/five.pdf"') && out.includes('[e](six.md)'));
  });

  it('resolves destinations inside the repository only', () => {
    assert.equal(resolveRepoHref('../img/a%20b.png#x', 'docs/guide/page.md', 'docs'), 'docs/img/a b.png');
    assert.equal(resolveRepoHref('/top.md', 'docs/guide/page.md', 'docs'), 'docs/top.md');
    assert.equal(resolveRepoHref('../../../out.md', 'docs/page.md', ''), null);
    assert.equal(resolveRepoHref('https://example.test/a.md', 'page.md', ''), null);
    assert.equal(normalizeRepoPath('./a//b/../c/'), 'a/c');
  });
});

describe('git sync: SUMMARY.md', () => {
  it('nests list items, turns headings into groups and skips the title', () => {
    const entries = parseSummary('# Table of contents\n\n* [Intro](README.md)\n  * [Sub \\[1\\]](sub.md)\n\n## Group\n\n* [In group](g.md)\n* Plain\n');
    assert.deepEqual(JSON.parse(JSON.stringify(entries)), [
      { title: 'Intro', href: 'README.md', children: [{ title: 'Sub [1]', href: 'sub.md', children: [] }] },
      {
        title: 'Group',
        href: null,
        children: [
          { title: 'In group', href: 'g.md', children: [] },
          { title: 'Plain', href: null, children: [] },
        ],
      },
    ]);
  });
});

describe('git sync: repository addresses and credentials', () => {
  it('splits credentials off the address and allows only configured protocols', () => {
    assert.deepEqual(parseRemote('https://bot:p%40ss@git.example.test/acme/docs.git', ['https']), {
      url: 'https://git.example.test/acme/docs.git',
      credentials: { username: 'bot', password: 'p@ss' },
    });
    assert.throws(
      () => parseRemote('http://git.example.test/a.git', ['https']),
      (error: Error) => error instanceof RemoteUrlError && !error.message.includes('example'),
    );
    assert.throws(() => parseRemote('https://a:b%0Ac@git.example.test/a.git', ['https']), RemoteUrlError);
    assert.throws(() => parseRemote('file://host/a.git', ['file']), RemoteUrlError);
  });

  it('scrubs credentials and address userinfo from text, and seals them for the queue', () => {
    const credentials = { username: 'robot-user', password: 's3cret/pass' };
    const text = scrubSecrets('fatal: https://robot-user:s3cret%2Fpass@host/x failed for s3cret/pass', credentials);
    assert.ok(!text.includes('s3cret') && !text.includes('robot-user'), text);
    const sealed = sealCredentials('k'.repeat(32), credentials);
    assert.ok(!sealed.includes('s3cret'));
    assert.deepEqual(openCredentials('k'.repeat(32), sealed), credentials);
    assert.throws(() => openCredentials('x'.repeat(32), sealed));
  });
});

describe('git sync: the git binary', () => {
  it('refuses transports outside the allowed protocols by itself (not only the address check), and removes its work directory', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'quire-git-unit-'));
    try {
      const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull };
      const source = path.join(root, 'source.git');
      execFileSync('git', ['init', '--quiet', '--bare', source], { env });
      const marker = path.join(root, 'ran');
      let workDir = '';
      const signal = new AbortController().signal;
      for (const url of [pathToFileURL(source).href, `ext::sh -c touch% ${marker}`]) {
        await assert.rejects(
          withGitSession({ allowedProtocols: ['https'], remote: url, credentials: null, signal }, (session) => {
            workDir = path.dirname(session.repo);
            return fetchBranch(session, url, 'refs/heads/main', 1024 * 1024);
          }),
          (error: Error) =>
            error instanceof GitCommandError && error.message === GIT_FAILURES.unreachable && /transport '(file|ext)' not allowed/.test(error.detail),
        );
        assert.equal(existsSync(workDir), false, 'the work directory is removed after a failure');
      }
      assert.equal(existsSync(marker), false, 'the ext transport never ran its command');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('connects to the addresses checked once, never resolving the name again nor using a proxy of the environment', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'quire-git-unit-'));
    const server = await startGitHttpServer({ projectRoot: root, username: 'bot', password: 'pinned-secret' });
    const saved = { http_proxy: process.env.http_proxy, HTTP_PROXY: process.env.HTTP_PROXY, ALL_PROXY: process.env.ALL_PROXY };
    try {
      const env = {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: os.devNull,
        GIT_AUTHOR_NAME: 'T',
        GIT_AUTHOR_EMAIL: 't@example.test',
        GIT_COMMITTER_NAME: 'T',
        GIT_COMMITTER_EMAIL: 't@example.test',
      };
      const bare = path.join(root, 'docs.git');
      execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare], { env });
      const commit = execFileSync('git', ['commit-tree', '-m', 'first', execFileSync('git', ['mktree'], { env, cwd: bare, input: '' }).toString().trim()], {
        env,
        cwd: bare,
      })
        .toString()
        .trim();
      execFileSync('git', ['update-ref', 'refs/heads/main', commit], { env, cwd: bare });
      const port = new URL(server.url).port;
      // A name no resolver knows: only the pin can take git to the server.
      const url = `http://repo.pinned.invalid:${port}/docs.git`;
      let lookups = 0;
      const lookup = async () => {
        lookups += 1;
        return ['127.0.0.1'];
      };
      const pinnedHosts = await pinRepositoryHost(url, { GIT_ALLOW_PRIVATE_NETWORKS: true }, lookup);
      assert.deepEqual(pinnedHosts, [`repo.pinned.invalid:${port}:127.0.0.1`]);
      // A proxy in the service's environment is not git's way out.
      Object.assign(process.env, { http_proxy: 'http://127.0.0.1:1', HTTP_PROXY: 'http://127.0.0.1:1', ALL_PROXY: 'http://127.0.0.1:1' });
      const credentials = { username: 'bot', password: 'pinned-secret' };
      const fetched = await withGitSession(
        { allowedProtocols: ['http'], remote: url, credentials, pinnedHosts, signal: new AbortController().signal },
        (session) => fetchBranch(session, url, 'refs/heads/main', 1024 * 1024),
      );
      assert.equal(fetched, commit);
      assert.equal(lookups, 1, 'resolved once, by the check');

      // The same name resolving to a private address is refused before git runs, with a generic reason.
      await assert.rejects(pinRepositoryHost(url, { GIT_ALLOW_PRIVATE_NETWORKS: false }, lookup), (error: unknown) => {
        assert.ok(error instanceof GitSyncError);
        assert.equal(error.message, ADDRESS_REFUSED);
        assert.match(error.detail ?? '', /127\.0\.0\.1 \(loopback\)/);
        return true;
      });
      // A name that does not resolve gets the same reason: two would tell which internal names exist.
      const unknown = async () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
      await assert.rejects(pinRepositoryHost(url, { GIT_ALLOW_PRIVATE_NETWORKS: true }, unknown), (error: unknown) => {
        assert.ok(error instanceof GitSyncError);
        assert.equal(error.message, ADDRESS_REFUSED);
        assert.match(error.detail ?? '', /ENOTFOUND/);
        return true;
      });
      assert.deepEqual(
        await pinRepositoryHost(`http://127.0.0.1:${port}/docs.git`, { GIT_ALLOW_PRIVATE_NETWORKS: true }, unknown),
        [],
        'a literal needs no pin',
      );
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
