import path from 'node:path';
import { slugify } from '@quire/http';
import { newId } from '@quire/runtime';
import {
  contentHash,
  coverKey,
  PAGE_FLAGS,
  pageFlag,
  pageLayoutOf,
  pagePaths,
  sameLayout,
  setCover,
  setPageFlag,
  setPageLayout,
  type BuiltContent,
  type PageCover,
  type RevisionDoc,
  type RevisionFileDoc,
  type RevisionGitDoc,
  type RevisionPageDoc,
} from '../revisions';
import { humanize, normalizeRepoPath, resolveRepoHref, type PagePlan, type RepoFile } from './layout';
import { rewriteLinks, splitHref, type ParsedPageFile } from './markdown';

/*
 * A repository snapshot → the content of a new revision. Page ids survive re-imports: a
 * page keeps the id of the current page that came from the same file (git path), else of
 * the current page at the same path in the tree (what an export wrote there). Links
 * between pages become `/pages/<id>`, images and attachments `/files/<id>` (the forms
 * revisions/links.ts resolves), so they survive moves; the export writes them back as
 * relative paths.
 */

export interface RepositorySnapshot {
  plans: PagePlan[];
  /** Parsed page files by repository path. */
  pageFiles: Map<string, ParsedPageFile>;
  /** Every blob of the commit by path, and every directory path. */
  blobs: Map<string, RepoFile>;
  dirs: Set<string>;
  /** The bytes of the files pages reference, by path. */
  assets: Map<string, Buffer>;
  /** Documentation root ('' = repository root). */
  root: string;
  variables?: Record<string, string>;
  /** Prefix for references to repository paths that are not content (repoTreeURL). */
  treeUrl?: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
};

export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[path.posix.extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Repository paths of the files the pages reference (to be read before building): any
 * non-markdown file inside the documentation root. Files outside it are not content
 * (links to them go to repoTreeURL).
 */
export function referencedAssets(snapshot: Pick<RepositorySnapshot, 'pageFiles' | 'blobs' | 'root'>): Set<string> {
  const found = new Set<string>();
  const prefix = snapshot.root ? `${snapshot.root}/` : '';
  for (const [file, parsed] of snapshot.pageFiles) {
    const note = (href: string) => {
      const target = resolveRepoHref(href, file, snapshot.root);
      if (target !== null && target.startsWith(prefix) && !/\.md$/i.test(target) && snapshot.blobs.has(target)) found.add(target);
      return null;
    };
    rewriteLinks(parsed.body, note);
    // The page's cover image (front matter `cover`) is one of its files too.
    if (parsed.meta.cover) note(parsed.meta.cover);
  }
  return found;
}

interface PlannedPage {
  plan: PagePlan;
  parsed: ParsedPageFile | null;
  parent: PlannedPage | null;
  title: string;
  slug: string;
  id: string;
}

function titleOf(plan: PagePlan, parsed: ParsedPageFile | null): string {
  const fromName = plan.file ? humanize(path.posix.basename(plan.file.path).replace(/\.md$/i, '')) : '';
  return parsed?.meta.title || plan.title || parsed?.heading || fromName || 'Untitled';
}

/** Pre-order list with titles and sibling-unique slugs. */
function planPages(plans: PagePlan[], pageFiles: Map<string, ParsedPageFile>): PlannedPage[] {
  const out: PlannedPage[] = [];
  const visit = (level: PagePlan[], parent: PlannedPage | null) => {
    const taken = new Set<string>();
    for (const plan of level) {
      const parsed = plan.file ? (pageFiles.get(plan.file.path) ?? null) : null;
      const title = titleOf(plan, parsed);
      const wanted = slugify(plan.slugSource || title, { fallback: 'page' });
      let slug = wanted;
      for (let n = 2; taken.has(slug); n += 1) slug = `${wanted}-${n}`;
      taken.add(slug);
      const page: PlannedPage = { plan, parsed, parent, title, slug, id: '' };
      out.push(page);
      visit(plan.children, page);
    }
  };
  visit(plans, null);
  return out;
}

/** Gives each planned page the id of the current page it continues (git path, then tree path), else a new one. */
function assignIds(planned: PlannedPage[], current: readonly RevisionPageDoc[]): Map<string, RevisionPageDoc> {
  const byGitPath = new Map<string, RevisionPageDoc>();
  for (const page of current) if (page.git?.path && !byGitPath.has(page.git.path)) byGitPath.set(page.git.path, page);
  const currentById = new Map(current.map((page) => [page.id, page]));
  const byTreePath = new Map<string, RevisionPageDoc>();
  for (const [id, treePath] of pagePaths(current)) if (!byTreePath.has(treePath)) byTreePath.set(treePath, currentById.get(id) as RevisionPageDoc);
  const used = new Set<string>();
  const matched = new Map<string, RevisionPageDoc>();
  const take = (page: PlannedPage, candidate: RevisionPageDoc | undefined) => {
    if (!candidate || used.has(candidate.id)) return;
    used.add(candidate.id);
    page.id = candidate.id;
    matched.set(candidate.id, candidate);
  };
  for (const page of planned) if (page.plan.file) take(page, byGitPath.get(page.plan.file.path));
  const treePath = (page: PlannedPage): string => (page.parent ? `${treePath(page.parent)}/${page.slug}` : page.slug);
  for (const page of planned) if (!page.id) take(page, byTreePath.get(treePath(page)));
  for (const page of planned) if (!page.id) page.id = newId();
  return matched;
}

function assignFiles(assets: Map<string, Buffer>, current: readonly RevisionFileDoc[], blobs: Map<string, RepoFile>) {
  const byGitPath = new Map(current.filter((file) => file.git?.path).map((file) => [file.git?.path as string, file]));
  const byNameAndHash = new Map(current.map((file) => [`${file.name}\n${file.blobHash}`, file]));
  const used = new Set<string>();
  const files: RevisionFileDoc[] = [];
  const idByPath = new Map<string, string>();
  const data = new Map<string, Buffer>();
  for (const [repoPath, bytes] of [...assets].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const name = path.posix.basename(repoPath);
    const blobHash = contentHash(bytes);
    const previous = [byGitPath.get(repoPath), byNameAndHash.get(`${name}\n${blobHash}`)].find((file) => file && !used.has(file.id));
    const id = previous?.id ?? newId();
    used.add(id);
    idByPath.set(repoPath, id);
    data.set(blobHash, bytes);
    files.push({
      id,
      name,
      contentType: contentTypeOf(name),
      size: bytes.length,
      blobHash,
      git: { oid: (blobs.get(repoPath) as RepoFile).oid, path: repoPath },
    });
  }
  return { files, idByPath, data };
}

function samePage(a: RevisionPageDoc, b: RevisionPageDoc): boolean {
  return (
    a.parent === b.parent &&
    a.title === b.title &&
    a.slug === b.slug &&
    a.emoji === b.emoji &&
    a.description === b.description &&
    a.hidden === b.hidden &&
    PAGE_FLAGS.every((flag) => pageFlag(a, flag) === pageFlag(b, flag)) &&
    sameLayout(a, b) &&
    coverKey(a) === coverKey(b) &&
    a.bodyHash === b.bodyHash &&
    a.git?.oid === b.git?.oid &&
    a.git?.path === b.git?.path &&
    JSON.stringify(a.variables ?? {}) === JSON.stringify(b.variables ?? {})
  );
}

const pageKey = (page: RevisionPageDoc) =>
  JSON.stringify([
    page.id,
    page.parent,
    page.title,
    page.slug,
    page.emoji,
    page.description,
    page.hidden,
    PAGE_FLAGS.map((flag) => pageFlag(page, flag)),
    pageLayoutOf(page),
    coverKey(page),
    page.bodyHash,
    page.git ?? null,
    page.variables ?? {},
  ]);
const fileKey = (file: RevisionFileDoc) => JSON.stringify([file.id, file.name, file.contentType, file.blobHash, file.git ?? null]);

/** True when `built` would not change `current` (same pages, files and variables; the commit may differ). */
export function sameContent(current: RevisionDoc, built: BuiltContent): boolean {
  const same = <T>(a: readonly T[], b: readonly T[], key: (item: T) => string) =>
    a.length === b.length && a.every((item, index) => key(item) === key(b[index]));
  return (
    same(current.pages, built.pages, pageKey) &&
    same(current.files, built.files, fileKey) &&
    JSON.stringify(current.variables ?? {}) === JSON.stringify(built.variables ?? {})
  );
}

/** The new content of a space from a snapshot, continuing `current` (ids, unchanged pages' dates, stored bodies). */
export function buildImportedContent(snapshot: RepositorySnapshot, current: RevisionDoc, git: RevisionGitDoc, now = new Date()): BuiltContent {
  const planned = planPages(snapshot.plans, snapshot.pageFiles);
  const matched = assignIds(planned, current.pages);
  const { files, idByPath, data } = assignFiles(snapshot.assets, current.files, snapshot.blobs);

  const pageIdByFile = new Map<string, string>();
  // A link to a directory is a link to its README page.
  const pageIdByDir = new Map<string, string>();
  for (const page of planned) {
    if (!page.plan.file) continue;
    pageIdByFile.set(page.plan.file.path, page.id);
    if (/^readme\.md$/i.test(path.posix.basename(page.plan.file.path))) pageIdByDir.set(normalizeRepoPath(`${page.plan.file.path}/..`) as string, page.id);
  }
  const resolveLink = (href: string, fromFile: string): string | null => {
    const target = resolveRepoHref(href, fromFile, snapshot.root);
    if (target === null) return null;
    const { suffix } = splitHref(href);
    const page = pageIdByFile.get(target) ?? pageIdByDir.get(target);
    if (page) return `/pages/${page}${suffix}`;
    const file = idByPath.get(target);
    if (file) return `/files/${file}${suffix}`;
    if (snapshot.treeUrl && (snapshot.blobs.has(target) || snapshot.dirs.has(target))) return `${snapshot.treeUrl.replace(/\/+$/, '')}/${target}${suffix}`;
    return null;
  };

  // A cover (front matter `cover`): an http(s) address as it is, else one of the repository's files; none when it is neither.
  const coverOf = (src: string, fromFile: string): PageCover['ref'] | undefined => {
    if (/^https?:\/\//i.test(src)) return { kind: 'url', url: src };
    const target = resolveRepoHref(src, fromFile, snapshot.root);
    const fileId = target === null ? undefined : idByPath.get(target);
    return fileId ? { kind: 'file', file: fileId } : undefined;
  };

  const packByHash = new Map<string, string>();
  for (const page of current.pages) if (page.bodyPack) packByHash.set(page.bodyHash, page.bodyPack);
  const bodies = new Map<string, string>();
  const pages: RevisionPageDoc[] = planned.map((page) => {
    const file = page.plan.file;
    const markdown = page.parsed && file ? rewriteLinks(page.parsed.body, (href) => resolveLink(href, file.path)) : '';
    const bodyHash = contentHash(markdown);
    const bodyPack = packByHash.get(bodyHash) ?? '';
    if (!bodyPack) bodies.set(bodyHash, markdown);
    const meta = page.parsed?.meta ?? {};
    const doc: RevisionPageDoc = {
      id: page.id,
      parent: page.parent?.id ?? null,
      title: page.title,
      slug: page.slug,
      emoji: meta.emoji ?? '',
      description: meta.description ?? '',
      hidden: meta.hidden ?? false,
      bodyHash,
      bodyPack,
      createdAt: now,
      updatedAt: now,
      ...(file ? { git: { oid: file.oid, path: file.path } } : {}),
      ...(meta.variables ? { variables: meta.variables } : {}),
    };
    for (const flag of PAGE_FLAGS) setPageFlag(doc, flag, meta[flag]);
    if (meta.layout) setPageLayout(doc, meta.layout);
    const cover = file && meta.cover ? coverOf(meta.cover, file.path) : undefined;
    // Front matter with a cover and no `layout.cover` (GitBook's older files) shows it.
    if (cover) setCover(doc, { ref: cover, yPos: meta.coverY ?? 0 }, meta.layout?.cover !== undefined);
    const previous = matched.get(page.id);
    if (previous) {
      doc.createdAt = previous.createdAt;
      if (samePage(previous, doc)) doc.updatedAt = previous.updatedAt;
    }
    return doc;
  });
  return { pages, files, bodies, blobs: data, git, ...(snapshot.variables ? { variables: snapshot.variables } : {}) };
}
