import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { normalizeRepoPath, resolveRepoHref } from './layout';
import { parsePageFile, parseSummary, renderPageFile, rewriteLinks } from './markdown';
import { parseRemote, RemoteUrlError, openCredentials, scrubSecrets, sealCredentials } from './remote';
import { fetchBranch, GitCommandError, withGitSession } from './runner';

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
    assert.throws(() => parseRemote('http://git.example.test/a.git', ['https']), (error: Error) => error instanceof RemoteUrlError && !error.message.includes('example'));
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
          (error: Error) => error instanceof GitCommandError && /transport '(file|ext)' not allowed/.test(error.message),
        );
        assert.equal(existsSync(workDir), false, 'the work directory is removed after a failure');
      }
      assert.equal(existsSync(marker), false, 'the ext transport never ran its command');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
