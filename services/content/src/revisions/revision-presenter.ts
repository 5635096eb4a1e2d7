import { apiUrl, revisionFileUrl } from '@quire/http';
import type { BackendConfig } from '@quire/runtime';
import type { RevisionDoc, RevisionFileDoc, RevisionGitDoc, RevisionPageDoc } from './revision-store';
import { childrenOf, pagePaths, treeOf, type PageTree } from './page-tree';
import { pageLayoutOf } from './page-layout';
import { pageFlag } from './revisions';

/*
 * Revision, Page and File objects (spec "Revision", "Page", "File"; OpenAPI Revision,
 * RevisionPageDocument, RevisionFile). Every page carries its markdown: the GitBook
 * document requires a page body (markdown or document) on RevisionPageDocument.
 */

type Config = Pick<BackendConfig, 'PUBLIC_BASE_URL' | 'FILES_BASE_URL' | 'INTERNAL_HMAC_SECRET'>;

export interface PagePresentation {
  spaceId: string;
  revisionId: string;
  paths: Map<string, string>;
  bodies: Map<string, string>;
  config: Config;
  /** 'document' answers the body as a JSON document instead of markdown (single page reads). */
  format?: 'markdown' | 'document';
  /** false omits the git metadata of pages (query `metadata=false`); default true. */
  metadata?: boolean;
  /** Generated markdown of computed pages by page id (query `computed`); a computed page not in it has an empty body. */
  computedBodies?: Map<string, string>;
  /** Rewrites a page's markdown before it is presented (query `evaluated` on page reads). */
  rewrite?: (page: RevisionPageDoc, markdown: string) => string;
}

/** A minimal rich-text document from markdown: one paragraph block per paragraph. */
export function markdownToDocument(markdown: string) {
  const paragraphs = markdown.split(/\n{2,}/).filter((text) => text.trim() !== '');
  return {
    object: 'document' as const,
    data: { schemaVersion: 1 },
    nodes: paragraphs.map((text, index) => ({
      object: 'block' as const,
      type: 'paragraph',
      key: `p${index}`,
      isVoid: false,
      data: { align: 'start' },
      nodes: [{ object: 'text' as const, leaves: [{ object: 'leaf' as const, text, marks: [] }] }],
    })),
  };
}

function presentPageNode(page: RevisionPageDoc, children: unknown[], p: PagePresentation) {
  const path = p.paths.get(page.id) ?? page.slug;
  const stored = page.computed ? (p.computedBodies?.get(page.id) ?? '') : (p.bodies.get(page.bodyHash) ?? '');
  const markdown = p.rewrite ? p.rewrite(page, stored) : stored;
  return {
    id: page.id,
    title: page.title,
    ...(page.emoji ? { emoji: page.emoji } : {}),
    createdAt: new Date(page.createdAt).toISOString(),
    updatedAt: new Date(page.updatedAt).toISOString(),
    kind: 'sheet' as const,
    type: 'document' as const,
    ...(p.format === 'document' ? { document: markdownToDocument(markdown) } : { markdown }),
    // A generated page has no stored document (OpenAPI: computed and documentId exclude each other).
    ...(page.computed ? {} : { documentId: page.bodyHash }),
    urls: { app: apiUrl(p.config.PUBLIC_BASE_URL, `/s/${p.spaceId}/~/revisions/${p.revisionId}/${path}`) },
    slug: page.slug,
    path,
    ...(page.description ? { description: page.description } : {}),
    pages: children,
    layout: pageLayoutOf(page),
    ...(page.cover ? { cover: { ref: page.cover.ref, ...(page.cover.refDark ? { refDark: page.cover.refDark } : {}), yPos: page.cover.yPos } } : {}),
    tags: [],
    hidden: page.hidden,
    noIndex: pageFlag(page, 'noIndex'),
    noRobotsIndex: pageFlag(page, 'noRobotsIndex'),
    variables: page.variables ?? {},
    ...(page.git && p.metadata !== false ? { git: page.git } : {}),
    ...(page.computed ? { computed: page.computed, computedSeed: page.computedSeed ?? page.id } : {}),
  };
}

/** The page tree under `parent` (null = whole revision), nested as the GitBook document nests it. */
export function presentPageTree(tree: PageTree, parent: string | null, p: PagePresentation): unknown[] {
  return childrenOf(tree, parent).map((id) => presentPageNode(tree.pages.get(id) as RevisionPageDoc, presentPageTree(tree, id, p), p));
}

export function presentPage(tree: PageTree, page: RevisionPageDoc, p: PagePresentation) {
  return presentPageNode(page, presentPageTree(tree, page.id, p), p);
}

/** A file of a revision (OpenAPI RevisionFile) with its signed download address; `metadata` false omits its git origin. */
export function presentFile(file: RevisionFileDoc, { revisionId, config, metadata = true }: { revisionId: string; config: Config; metadata?: boolean }) {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: revisionFileUrl(config, revisionId, file.id),
    size: file.size,
    ...(file.git && metadata ? { git: file.git } : {}),
  };
}

/** Spec `git{oid, message, createdByService, url, ref}`; GitBook's client reads `createdByGitBook`. */
export function presentRevisionGit(git: RevisionGitDoc) {
  return { ...git, createdByGitBook: git.createdByService };
}

export function presentRevision(
  revision: RevisionDoc,
  options: { config: Config; bodies: Map<string, string>; metadata: boolean; computedBodies?: Map<string, string> },
) {
  const tree = treeOf(revision.pages);
  const p: PagePresentation = {
    spaceId: revision.spaceId,
    revisionId: revision._id,
    paths: pagePaths(revision.pages),
    bodies: options.bodies,
    config: options.config,
    metadata: options.metadata,
    computedBodies: options.computedBodies,
  };
  const git = options.metadata && revision.git ? { git: presentRevisionGit(revision.git) } : {};
  return {
    object: 'revision' as const,
    id: revision._id,
    parents: revision.parents,
    pages: presentPageTree(tree, null, p),
    files: revision.files.map((file) => presentFile(file, { revisionId: revision._id, config: options.config, metadata: options.metadata })),
    reusableContents: [],
    tags: [],
    variables: revision.variables ?? {},
    createdAt: new Date(revision.createdAt).toISOString(),
    ...git,
    type: 'edits' as const,
    urls: { app: apiUrl(options.config.PUBLIC_BASE_URL, `/s/${revision.spaceId}/~/revisions/${revision._id}`) },
  };
}
