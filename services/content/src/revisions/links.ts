import { markdownParser } from '@quire/markdown';
import type { ContentContext } from '../kernel';
import type { LinkEntryDoc, RevisionDoc, RevisionFileDoc, RevisionPageDoc } from './revision-store';
import { pagePaths } from './page-tree';
import { loadBodies, loadRevision } from './revisions';

/*
 * Links of a revision's markdown, classified (spec "Content link item"):
 *   ok      — an internal target that exists in the revision, or an external address;
 *   broken  — an internal target (page path, relative .md file, /pages/<id>, /files/<id>,
 *             .gitbook/assets/<name>) missing from the revision;
 *   in-app  — an absolute address of this application (under PUBLIC_BASE_URL).
 * A revision is immutable, so its links are computed once and stored by revision id.
 */

const parser = markdownParser('source');

type Token = ReturnType<typeof parser.parse>[number];

/** Every link and image target of a markdown body, in order. */
export function extractHrefs(markdown: string): string[] {
  const hrefs: string[] = [];
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token.type === 'link_open') {
        const href = token.attrGet('href');
        if (href) hrefs.push(String(href));
      } else if (token.type === 'image') {
        const src = token.attrGet('src');
        if (src) hrefs.push(String(src));
      }
      if (token.children) walk(token.children);
    }
  };
  walk(parser.parse(markdown, {}));
  return hrefs.map((href) => {
    try {
      return decodeURI(href);
    } catch {
      return href;
    }
  });
}

export interface LinkTargets {
  pageIds: Set<string>;
  /** Path ("guides/intro") → page id. */
  pageByPath: Map<string, string>;
  /** Page id → the directory its markdown file lives in (Git layout: a/b.md, or a/b/README.md with children). */
  pageDir: Map<string, string>;
  fileIds: Set<string>;
  fileByName: Map<string, string>;
  firstPage: string | null;
  publicBaseUrl: string;
}

export function linkTargets(pages: readonly RevisionPageDoc[], files: readonly RevisionFileDoc[], publicBaseUrl: string): LinkTargets {
  const paths = pagePaths(pages);
  const parents = new Set(pages.map((page) => page.parent).filter((parent): parent is string => parent !== null));
  const pageByPath = new Map<string, string>();
  const pageDir = new Map<string, string>();
  for (const page of pages) {
    const path = paths.get(page.id) as string;
    if (!pageByPath.has(path)) pageByPath.set(path, page.id);
    pageDir.set(page.id, parents.has(page.id) ? path : path.split('/').slice(0, -1).join('/'));
  }
  const fileByName = new Map<string, string>();
  for (const file of files) if (!fileByName.has(file.name)) fileByName.set(file.name, file.id);
  return {
    pageIds: new Set(pages.map((page) => page.id)),
    pageByPath,
    pageDir,
    fileIds: new Set(files.map((file) => file.id)),
    fileByName,
    firstPage: pages[0]?.id ?? null,
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ''),
  };
}

function resolvePath(dir: string, relative: string): string {
  const segments = dir ? dir.split('/') : [];
  for (const segment of relative.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

/** Classifies one href written on page `fromPage`; null for what is not a link to classify (in-page anchors). */
export function classifyHref(href: string, fromPage: string, targets: LinkTargets): Omit<LinkEntryDoc, 'pageId'> | null {
  const trimmed = href.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) {
    const base = targets.publicBaseUrl;
    const inApp = trimmed === base || trimmed.startsWith(`${base}/`) || trimmed.startsWith(`${base}?`) || trimmed.startsWith(`${base}#`);
    return { status: inApp ? 'in-app' : 'ok', href, kind: 'url', target: null };
  }
  const path = trimmed.replace(/[?#].*$/, '');
  const byId = /^\/?(pages|files)\/([^/]+)\/?$/.exec(path);
  if (byId) {
    const [, kind, id] = byId;
    if (kind === 'pages')
      return targets.pageIds.has(id) ? { status: 'ok', href, kind: 'page', target: id } : { status: 'broken', href, kind: 'page', target: null };
    return targets.fileIds.has(id) ? { status: 'ok', href, kind: 'file', target: id } : { status: 'broken', href, kind: 'file', target: null };
  }
  const asset = /(?:^|\/)\.gitbook\/assets\/(.+)$/.exec(path);
  if (asset) {
    const file = targets.fileByName.get(asset[1]);
    return file ? { status: 'ok', href, kind: 'file', target: file } : { status: 'broken', href, kind: 'file', target: null };
  }
  const resolved = path.startsWith('/') ? resolvePath('', path) : resolvePath(targets.pageDir.get(fromPage) ?? '', path);
  const pagePath = resolved
    .replace(/\.md$/i, '')
    .replace(/(^|\/)README$/i, '')
    .replace(/\/+$/, '');
  const page = pagePath === '' ? targets.firstPage : targets.pageByPath.get(pagePath);
  return page ? { status: 'ok', href, kind: 'page', target: page } : { status: 'broken', href, kind: 'page', target: null };
}

/** Every classified link of the given pages' bodies. */
export function classifyLinks(pages: readonly RevisionPageDoc[], bodies: Map<string, string>, targets: LinkTargets): LinkEntryDoc[] {
  const links: LinkEntryDoc[] = [];
  for (const page of pages) {
    const markdown = bodies.get(page.bodyHash) ?? '';
    if (!markdown.includes('](') && !markdown.includes(']:')) continue;
    for (const href of extractHrefs(markdown)) {
      const link = classifyHref(href, page.id, targets);
      if (link) links.push({ pageId: page.id, ...link });
    }
  }
  return links;
}

/** The links of a revision: computed on first use, then read from the store (revisions never change). */
export async function linksOfRevision(ctx: ContentContext, revision: RevisionDoc): Promise<LinkEntryDoc[]> {
  const stored = await ctx.models.RevisionLinks.findById(revision._id).lean();
  // An empty list may come back absent (an upsert's empty array is not always stored): no links.
  if (stored) return stored.links ?? [];
  const bodies = await loadBodies(ctx, revision.pages);
  const links = classifyLinks(revision.pages, bodies, linkTargets(revision.pages, revision.files, ctx.config.PUBLIC_BASE_URL));
  await ctx.models.RevisionLinks.updateOne({ _id: revision._id }, { $setOnInsert: { spaceId: revision.spaceId, links } }, { upsert: true }).catch(
    (error: unknown) => {
      // A concurrent first computation stored the same (deterministic) result first.
      if ((error as { code?: number }).code !== 11000) throw error;
    },
  );
  return links;
}

/**
 * The broken links of revision `headId` that revision `baseId` did not have (a link being its
 * page and its address as written), with their pages' titles, in page order.
 */
export async function newBrokenLinks(ctx: ContentContext, baseId: string, headId: string): Promise<Array<LinkEntryDoc & { pageTitle: string }>> {
  if (baseId === headId) return [];
  const [base, head] = await Promise.all([loadRevision(ctx, baseId), loadRevision(ctx, headId)]);
  const key = (link: LinkEntryDoc) => `${link.pageId}\n${link.href}`;
  const before = new Set((await linksOfRevision(ctx, base)).filter((link) => link.status === 'broken').map(key));
  const titles = new Map(head.pages.map((page) => [page.id, page.title]));
  return (await linksOfRevision(ctx, head))
    .filter((link) => link.status === 'broken' && !before.has(key(link)))
    .map((link) => ({ ...link, pageTitle: titles.get(link.pageId) ?? '' }));
}

/** One distinct link target of a revision, with every page linking to it. */
export interface LinkGroup {
  key: string;
  status: LinkEntryDoc['status'];
  kind: LinkEntryDoc['kind'];
  target: string | null;
  href: string;
  pages: string[];
}

export function groupLinks(links: readonly LinkEntryDoc[]): LinkGroup[] {
  const groups = new Map<string, LinkGroup>();
  for (const link of links) {
    const key = link.target ? `${link.kind}:${link.target}` : `${link.status}:${link.kind}:${link.href}`;
    const group = groups.get(key) ?? { key, status: link.status, kind: link.kind, target: link.target, href: link.href, pages: [] };
    if (!group.pages.includes(link.pageId)) group.pages.push(link.pageId);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Open change requests whose broken links are counted in a space's link stats (the newest ones). */
const MAX_CHANGE_REQUESTS_IN_STATS = 50;

/**
 * The link items of a revision of a space (all of them, or those of one page) and their stats
 * (spec "Content link item": every links list has them): total distinct targets, broken ones,
 * and broken ones that the space's open change requests would add there.
 */
export async function spaceLinkReport(
  ctx: ContentContext,
  spaceId: string,
  revision: RevisionDoc,
  options: { pageId?: string } = {},
): Promise<{ groups: LinkGroup[]; stats: { total: number; broken: { total: number; changeRequest: number } } }> {
  const onPage = (links: readonly LinkEntryDoc[]) => (options.pageId ? links.filter((link) => link.pageId === options.pageId) : links);
  const groups = groupLinks(onPage(await linksOfRevision(ctx, revision)));
  const brokenInSpace = new Set(groups.filter((group) => group.status === 'broken').map((group) => group.key));
  const open = await ctx.models.ChangeRequest.find({ spaceId, status: 'open', revisionId: { $ne: revision._id } }, { revisionId: 1 })
    .sort({ createdAt: -1 })
    .limit(MAX_CHANGE_REQUESTS_IN_STATS)
    .lean<Array<{ revisionId: string; _id: string }>>();
  const introduced = new Set<string>();
  for (const changeRequest of open) {
    const crGroups = groupLinks(onPage(await linksOfRevision(ctx, await loadRevision(ctx, changeRequest.revisionId))));
    for (const group of crGroups) if (group.status === 'broken' && !brokenInSpace.has(group.key)) introduced.add(`${changeRequest._id}\n${group.key}`);
  }
  return { groups, stats: { total: groups.length, broken: { total: brokenInSpace.size, changeRequest: introduced.size } } };
}
