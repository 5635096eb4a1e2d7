import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { apiClient, isolatedGit, type ApiClient, type TestStack, successBody } from '@quire/testkit';

/**
 * Git sync benchmark for `npm run bench`: a 1,000-page repository (SUMMARY.md nesting
 * 10 sections × 9 chapters × 10 pages, a few hundred words a page, links between pages,
 * an image every 20 pages) in a temporary bare repository, imported over file:// into
 * fresh spaces; then exports of that content into fresh bare repositories, a re-import
 * of 10 edited pages and a re-import of an unchanged commit. Each time runs from the
 * POST to the operation's success in git info. Returns the medians in milliseconds.
 */

const SECTIONS = 10;
const CHAPTERS = 9;
const PAGES_PER_CHAPTER = 10;
const RUNS = 3;

const WORDS = (
  'the documentation explains how to install configure and deploy the service with a container image a registry ' +
  'and a cluster each node runs a worker that reads jobs from a queue retries failures with backoff and reports ' +
  'metrics to the dashboard an administrator manages members teams roles and permissions of the organization ' +
  'pages link to other pages and embed diagrams files and code samples that readers copy into their terminal'
).split(' ');

/** Deterministic text so that every run imports the same bytes. */
function words(seed: number, count: number): string {
  let state = seed * 2_654_435_761;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    out.push(WORDS[state % WORDS.length]);
  }
  return out.join(' ');
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

interface BenchRepo {
  bare: string;
  work: string;
  url: string;
}

function gitIn(root: string) {
  return isolatedGit(root, { name: 'Bench', email: 'bench@bench.test' }).run;
}

/** Writes the 1,000-page repository and pushes it to a new bare repository. */
function generateRepository(root: string): BenchRepo {
  const git = gitIn(root);
  const bare = path.join(root, 'docs.git');
  const work = path.join(root, 'docs-work');
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(root, 'init', '--quiet', '--initial-branch=main', work);
  const write = (file: string, content: string | Buffer) => {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), content);
  };
  const summary = ['# Table of contents', ''];
  let page = 0;
  /** A page at `depth` directories below the root; every 20th one shows an image. */
  const body = (title: string, depth: number, previous: string | null) => {
    page += 1;
    let image = '';
    if (page % 20 === 0) {
      write(`.gitbook/assets/figure-${page}.png`, Buffer.alloc(16_384, page % 251));
      image = `\n\n![Figure ${page}](${'../'.repeat(depth)}.gitbook/assets/figure-${page}.png)\n`;
    }
    const link = previous ? `\n\nPrevious: [${previous}](${previous}.md)` : '';
    return `# ${title}\n\n${words(page, 120)}.\n\n## Details\n\n${words(page + 7, 120)}.\n\n- ${words(page + 3, 12)}\n- ${words(page + 5, 12)}${link}${image}\n\n${words(page + 11, 60)}.\n`;
  };
  for (let s = 1; s <= SECTIONS; s++) {
    write(`section-${s}/README.md`, body(`Section ${s}`, 1, null));
    summary.push(`* [Section ${s}](section-${s}/README.md)`);
    for (let c = 1; c <= CHAPTERS; c++) {
      const dir = `section-${s}/chapter-${c}`;
      write(`${dir}/README.md`, body(`Chapter ${s}.${c}`, 2, null));
      summary.push(`  * [Chapter ${s}.${c}](${dir}/README.md)`);
      for (let p = 1; p <= PAGES_PER_CHAPTER; p++) {
        write(`${dir}/page-${p}.md`, body(`Page ${s}.${c}.${p}`, 2, p > 1 ? `page-${p - 1}` : null));
        summary.push(`    * [Page ${s}.${c}.${p}](${dir}/page-${p}.md)`);
      }
    }
  }
  write('SUMMARY.md', `${summary.join('\n')}\n`);
  write('README.md', '# Bench\n\nA generated repository.\n');
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'Generated documentation');
  git(work, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
  return { bare, work, url: pathToFileURL(bare).href };
}

/** POSTs an import or export and polls git info until it ended; returns the elapsed milliseconds. */
async function timeOperation(api: ApiClient, spaceId: string, direction: 'import' | 'export', body: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  successBody(await api.post(`/v1/spaces/${spaceId}/git/${direction}`, { ref: 'refs/heads/main', ...body }), `${direction} request`);
  for (;;) {
    const info = successBody(await api.get(`/v1/spaces/${spaceId}/git/info`), 'git info');
    if (info.operation.state !== 'running') {
      if (info.operation.state !== 'success') throw new Error(`${direction} ended ${info.operation.state}: ${info.operation.error}`);
      return performance.now() - started;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function benchGit(stack: Pick<TestStack, 'baseUrl' | 'cli'>, options: { log?: (line: string) => void } = {}): Promise<Record<string, number>> {
  const log = options.log ?? ((line: string) => console.log(line));
  const root = mkdtempSync(path.join(os.tmpdir(), 'quire-bench-git-'));
  try {
    const repo = generateRepository(root);
    const owner = await stack.cli(['bootstrap', '--email', `bench-git-${Date.now()}@bench.test`, '--org', 'Bench git', '--json']);
    const api = apiClient(stack.baseUrl, owner.token);
    const results: Record<string, number> = {};
    const report = (label: string, samples: number[]) => {
      results[label] = median(samples);
      log(
        `${label.padEnd(64)} p50 ${median(samples).toFixed(0)} ms · min ${Math.min(...samples).toFixed(0)} · max ${Math.max(...samples).toFixed(0)} · n=${samples.length}`,
      );
    };
    const newSpace = async (title: string) => successBody(await api.post(`/v1/orgs/${owner.organizationId}/spaces`, { title }), 'create space').id as string;

    const imports: number[] = [];
    let spaceId = '';
    for (let run = 0; run < RUNS; run++) {
      spaceId = await newSpace(`Git bench ${run}`);
      imports.push(await timeOperation(api, spaceId, 'import', { url: repo.url }));
    }
    const pages = successBody(await api.get(`/v1/spaces/${spaceId}/content`), 'content');
    const count = (list: Array<{ pages: unknown[] }>): number => list.reduce((sum, page) => sum + 1 + count(page.pages as Array<{ pages: unknown[] }>), 0);
    report(`git import, ${count(pages.pages)} pages + ${pages.files.length} images, file:// (POST → success)`, imports);

    const exports: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const target = path.join(root, `export-${run}.git`);
      gitIn(root)(root, 'init', '--quiet', '--bare', '--initial-branch=main', target);
      exports.push(await timeOperation(api, spaceId, 'export', { url: pathToFileURL(target).href, commitMessage: `Bench export ${run}` }));
    }
    report('git export of the same content to a new branch (POST → success)', exports);

    const git = gitIn(root);
    const edits: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      for (let p = 1; p <= 10; p++) writeFileSync(path.join(repo.work, `section-${p}/chapter-1/page-1.md`), `# Page ${p}.1.1\n\nEdited in run ${run}.\n`);
      git(repo.work, 'commit', '--quiet', '--all', '-m', `Edit 10 pages (${run})`);
      git(repo.work, 'push', '--quiet', repo.bare, 'HEAD:refs/heads/main');
      edits.push(await timeOperation(api, spaceId, 'import', { url: repo.url }));
    }
    report('git re-import with 10 pages edited (POST → success)', edits);

    const unchanged: number[] = [];
    for (let run = 0; run < RUNS; run++) unchanged.push(await timeOperation(api, spaceId, 'import', { url: repo.url }));
    report('git re-import of an unchanged commit (no new revision)', unchanged);
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
