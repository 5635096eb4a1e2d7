import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { childrenOf, treeOf, type RevisionDoc, type RevisionPageDoc } from '../revisions';
import { normalizeRepoPath } from './layout';
import { renderPageFile, renderSummary, rewriteLinks, safeDecode, splitHref } from './markdown';

/*
 * A revision → the files of its repository form, under the documentation root:
 *   one file per page, `<slug>.md`, or `<slug>/README.md` holding its children's files;
 *   SUMMARY.md listing them in order (the first page is the readme, named in .gitbook.yaml);
 *   files under .gitbook/assets/, space variables in .gitbook/vars.yaml;
 *   `/pages/<id>` and `/files/<id>` references written as relative paths.
 * What import.ts reads back as the same tree, slugs and bodies.
 */

export interface ExportLayout {
  /** Repository path of the project directory ('' = root): where .gitbook.yaml goes. */
  projectDirectory: string;
  /** Repository path of the documentation root. */
  root: string;
  /** Repository path of SUMMARY.md. */
  summary: string;
  /** The rest of an existing .gitbook.yaml (redirects…), kept as it was. */
  config: Record<string, unknown>;
}

export interface RenderedRepository {
  /** Repository path → content. */
  files: Map<string, Buffer>;
}

const ASSETS = '.gitbook/assets';

/** A file name safe in a repository path (no separators, no control characters). */
function safeName(name: string): string {
  const cleaned = name
    .replace(/[\u0000-\u001f\u007f/\\]+/g, '-')
    .replace(/^\.+/, '')
    .trim();
  return cleaned || 'file';
}

function assetNames(revision: RevisionDoc): Map<string, string> {
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const file of revision.files) {
    const wanted = safeName(file.name);
    const ext = path.posix.extname(wanted);
    const base = wanted.slice(0, wanted.length - ext.length);
    let name = wanted;
    // Case-insensitive: the repository may be checked out on such a file system.
    for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${base}-${n}${ext}`;
    taken.add(name.toLowerCase());
    names.set(file.id, name);
  }
  return names;
}

const joinPath = (...parts: string[]) => normalizeRepoPath(parts.filter(Boolean).join('/')) as string;

function relativeFrom(fromFile: string, target: string): string {
  const relative = path.posix.relative(path.posix.dirname(`/${fromFile}`), `/${target}`);
  return relative || path.posix.basename(target);
}

/** Page id → its file path under the documentation root. */
export function pageFilePaths(pages: readonly RevisionPageDoc[]): Map<string, string> {
  const tree = treeOf(pages);
  const paths = new Map<string, string>();
  const visit = (parent: string | null, dir: string) => {
    for (const id of childrenOf(tree, parent)) {
      const page = tree.pages.get(id) as RevisionPageDoc;
      const hasChildren = childrenOf(tree, id).length > 0;
      paths.set(id, hasChildren ? joinPath(dir, page.slug, 'README.md') : joinPath(dir, `${page.slug}.md`));
      if (hasChildren) visit(id, joinPath(dir, page.slug));
    }
  };
  visit(null, '');
  return paths;
}

export function renderRepository(revision: RevisionDoc, bodies: Map<string, string>, blobs: Map<string, Buffer>, layout: ExportLayout): RenderedRepository {
  const files = new Map<string, Buffer>();
  const pagePaths = pageFilePaths(revision.pages);
  const names = assetNames(revision);
  const fileByName = new Map(revision.files.map((file) => [file.name, file.id]));
  const inRoot = (relative: string) => joinPath(layout.root, relative);
  const assetPath = (fileId: string) => inRoot(`${ASSETS}/${names.get(fileId)}`);

  for (const page of revision.pages) {
    const file = inRoot(pagePaths.get(page.id) as string);
    const body = rewriteLinks(bodies.get(page.bodyHash) ?? '', (href) => {
      const { path: target, suffix } = splitHref(href);
      const reference = /^\/?(pages|files)\/([^/]+)\/?$/.exec(target);
      if (reference) {
        const [, kind, id] = reference;
        if (kind === 'pages' && pagePaths.has(id)) return relativeFrom(file, inRoot(pagePaths.get(id) as string)) + suffix;
        if (kind === 'files' && names.has(id)) return relativeFrom(file, assetPath(id)) + suffix;
        return null;
      }
      // `.gitbook/assets/<name>` written by hand: the file of that name, wherever it is exported.
      const asset = /(?:^|\/)\.gitbook\/assets\/(.+)$/.exec(target);
      const byName = asset ? fileByName.get(safeDecode(asset[1])) : undefined;
      return byName ? relativeFrom(file, assetPath(byName)) + suffix : null;
    });
    // The cover: its file's place beside the page's, or its address.
    const cover = page.cover && {
      src: page.cover.ref.kind === 'url' ? page.cover.ref.url : names.has(page.cover.ref.file) ? relativeFrom(file, assetPath(page.cover.ref.file)) : '',
      y: page.cover.yPos,
    };
    files.set(file, Buffer.from(renderPageFile(page, body, cover?.src ? cover : undefined), 'utf8'));
  }

  const tree = treeOf(revision.pages);
  const entries: Array<{ title: string; href: string; depth: number }> = [];
  const list = (parent: string | null, depth: number) => {
    for (const id of childrenOf(tree, parent)) {
      const page = tree.pages.get(id) as RevisionPageDoc;
      entries.push({ title: page.title, href: relativeFrom(layout.summary, inRoot(pagePaths.get(id) as string)), depth });
      list(id, depth + 1);
    }
  };
  list(null, 0);
  files.set(layout.summary, Buffer.from(renderSummary(entries), 'utf8'));

  for (const file of revision.files) {
    const data = blobs.get(file.blobHash);
    if (data) files.set(assetPath(file.id), data);
  }
  if (revision.variables && Object.keys(revision.variables).length > 0) {
    files.set(inRoot('.gitbook/vars.yaml'), Buffer.from(stringifyYaml(revision.variables, { lineWidth: 0 }), 'utf8'));
  }

  const first = childrenOf(tree, null)[0];
  const rootFromProject = path.posix.relative(`/${layout.projectDirectory}`, `/${layout.root}`);
  const config = {
    ...layout.config,
    root: rootFromProject ? `./${rootFromProject}/` : './',
    structure: {
      readme: first ? (pagePaths.get(first) as string) : 'README.md',
      summary: layout.root ? layout.summary.slice(layout.root.length + 1) : layout.summary,
    },
  };
  files.set(joinPath(layout.projectDirectory, '.gitbook.yaml'), Buffer.from(stringifyYaml(config, { lineWidth: 0 }), 'utf8'));
  return { files };
}

/** Paths of an existing tree the export owns (removed when it no longer writes them). */
export function isManagedPath(repoPath: string, layout: ExportLayout): boolean {
  if (repoPath === joinPath(layout.projectDirectory, '.gitbook.yaml')) return true;
  const prefix = layout.root ? `${layout.root}/` : '';
  if (!repoPath.startsWith(prefix)) return false;
  const relative = repoPath.slice(prefix.length);
  if (relative.startsWith(`${ASSETS}/`) || relative === '.gitbook/vars.yaml') return true;
  // Markdown outside hidden directories is pages (as import reads it).
  return /\.md$/i.test(relative) && !relative.split('/').some((segment) => segment.startsWith('.') || segment === 'node_modules');
}
