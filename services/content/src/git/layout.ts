import path from 'node:path';
import { isExternalHref, PageFileError, parseYamlMap, safeDecode, splitHref, type SummaryEntry } from './markdown';

/*
 * Where a repository's pages are and how they nest, before any page is read:
 *   .gitbook.yaml (in the project directory): root, structure.readme, structure.summary;
 *   SUMMARY.md when present: its nested list is the page tree;
 *   otherwise the directory layout: the readme first, then every .md file as a page and
 *   every sub-directory holding markdown as a page (its README.md, else an empty page)
 *   with the directory's entries as children, in name order.
 * Paths here are repository paths ("docs/guides/intro.md"), '/'-separated.
 */

export interface RepoFile {
  path: string;
  oid: string;
  size: number;
}

export interface GitbookLayout {
  /** Directory of the documentation ('' = repository root). */
  root: string;
  readme: string;
  summary: string;
}

/** One page to build: its markdown file (if any), a title from the table of contents, its slug's source. */
export interface PagePlan {
  file: RepoFile | null;
  /** Title from SUMMARY.md or a directory name; the page's own front matter wins over it. */
  title: string | null;
  /** What the slug is made from ('' = the title). */
  slugSource: string;
  children: PagePlan[];
}

/** Normalizes a repository-relative path; null when it leaves the repository. */
export function normalizeRepoPath(value: string): string | null {
  const segments: string[] = [];
  for (const segment of value.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else segments.push(segment);
  }
  return segments.join('/');
}

const join = (...parts: string[]) => normalizeRepoPath(parts.filter(Boolean).join('/'));

/** True for a path inside a `.git` directory: git refuses to check such paths out (an export must not write them). */
export const isInGitDirectory = (repoPath: string) => repoPath.split('/').some((segment) => segment.toLowerCase() === '.git');

/** The project's layout from its `.gitbook.yaml` text (null when absent). */
export function gitbookLayout(projectDirectory: string, configText: string | null): GitbookLayout {
  const config = configText === null ? {} : parseYamlMap(configText, '.gitbook.yaml');
  const structure = (config.structure && typeof config.structure === 'object' ? config.structure : {}) as Record<string, unknown>;
  const text = (value: unknown, fallback: string, field: string): string => {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'string') throw new PageFileError(`.gitbook.yaml: ${field} must be a path`);
    return value;
  };
  const root = join(projectDirectory, text(config.root, '.', 'root'));
  if (root === null) throw new PageFileError('.gitbook.yaml: root leaves the repository');
  const readme = join(root, text(structure.readme, 'README.md', 'structure.readme'));
  const summary = join(root, text(structure.summary, 'SUMMARY.md', 'structure.summary'));
  if (!readme || !summary) throw new PageFileError('.gitbook.yaml: structure paths must stay inside the repository');
  if ([root, readme, summary].some(isInGitDirectory)) throw new PageFileError('.gitbook.yaml: root and structure paths cannot be inside a .git directory');
  return { root, readme, summary };
}

export const isMarkdown = (file: string) => /\.md$/i.test(file);
const isReadme = (file: string) => /^readme\.md$/i.test(path.posix.basename(file));

/** Slug source of a page file: its name, or its directory's for a README (none for the root readme). */
function slugSourceOf(file: string, root: string): string {
  if (isReadme(file)) {
    const dir = path.posix.dirname(file);
    return dir === '.' || dir === root ? '' : path.posix.basename(dir);
  }
  return path.posix.basename(file).replace(/\.md$/i, '');
}

/** Where a relative destination written in `fromFile` points in the repository (null: outside it or not a path). */
export function resolveRepoHref(href: string, fromFile: string, root: string): string | null {
  if (isExternalHref(href)) return null;
  const target = safeDecode(splitHref(href).path);
  if (target === '') return null;
  const base = target.startsWith('/') ? root : path.posix.dirname(fromFile);
  return join(base === '.' ? '' : base, target);
}

/** The page tree a SUMMARY.md describes; the readme goes first when the summary does not list it. */
export function planFromSummary(entries: SummaryEntry[], layout: GitbookLayout, files: Map<string, RepoFile>): PagePlan[] {
  const used = new Set<string>();
  const plan = (entry: SummaryEntry): PagePlan[] => {
    const children = entry.children.flatMap(plan);
    if (entry.href === null) return [{ file: null, title: entry.title, slugSource: entry.title, children }];
    // External links have no page form here: their children move up.
    if (isExternalHref(entry.href)) return children;
    let target = resolveRepoHref(entry.href, layout.summary, layout.root);
    if (target === null) return children;
    // A directory stands for its README.md.
    const directoryReadme = join(target, 'README.md') as string;
    if (!isMarkdown(target) && files.has(directoryReadme)) target = directoryReadme;
    if (used.has(target)) return children;
    used.add(target);
    const file = isMarkdown(target) ? (files.get(target) ?? null) : null;
    return [{ file, title: entry.title || null, slugSource: slugSourceOf(target, layout.root), children }];
  };
  const pages = entries.flatMap(plan);
  const readme = files.get(layout.readme);
  if (readme && !used.has(layout.readme)) pages.unshift({ file: readme, title: null, slugSource: '', children: [] });
  return pages;
}

interface DirectoryNode {
  files: Map<string, RepoFile>;
  dirs: Map<string, DirectoryNode>;
}

const byName = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
/** "getting-started" → "Getting started": a title from a file or directory name. */
export const humanize = (name: string) => name.replace(/[-_]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

/** The page tree of the directory layout under the layout's root. */
export function planFromDirectories(layout: GitbookLayout, files: Map<string, RepoFile>): PagePlan[] {
  const top: DirectoryNode = { files: new Map(), dirs: new Map() };
  const prefix = layout.root ? `${layout.root}/` : '';
  for (const file of files.values()) {
    if (!isMarkdown(file.path) || !file.path.startsWith(prefix)) continue;
    if (file.path === layout.summary || file.path === layout.readme) continue;
    const segments = file.path.slice(prefix.length).split('/');
    // Hidden directories (.gitbook, .github…) and dependencies hold no pages.
    if (segments.some((segment, index) => segment.startsWith('.') || (index < segments.length - 1 && segment === 'node_modules'))) continue;
    let node = top;
    for (const segment of segments.slice(0, -1)) {
      let next = node.dirs.get(segment);
      if (!next) node.dirs.set(segment, (next = { files: new Map(), dirs: new Map() }));
      node = next;
    }
    node.files.set(segments[segments.length - 1], file);
  }
  const entriesOf = (node: DirectoryNode, skipReadme: boolean): PagePlan[] => {
    const names = [...new Set([...node.files.keys(), ...node.dirs.keys()])].sort(byName.compare);
    const out: PagePlan[] = [];
    for (const name of names) {
      const file = node.files.get(name);
      if (file && !(skipReadme && isReadme(name))) out.push({ file, title: null, slugSource: slugSourceOf(file.path, layout.root), children: [] });
      const dir = node.dirs.get(name);
      if (dir) {
        const readmeName = [...dir.files.keys()].find(isReadme);
        const children = entriesOf(dir, true);
        out.push({ file: readmeName ? (dir.files.get(readmeName) as RepoFile) : null, title: readmeName ? null : humanize(name), slugSource: name, children });
      }
    }
    return out;
  };
  const pages = entriesOf(top, false);
  const readme = files.get(layout.readme);
  if (readme) pages.unshift({ file: readme, title: null, slugSource: slugSourceOf(readme.path, layout.root), children: [] });
  return pages;
}
