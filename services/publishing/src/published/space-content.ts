import { DEFAULT_PAGE_LAYOUT } from '@quire/contract';
import { clientsOf } from '@quire/http';
import { renderMarkdown, type RenderedMarkdown, type RenderOptions } from '@quire/markdown';
import type { content } from '@quire/proto';
import { declareCache, type LruCache } from '@quire/runtime';
import type { PublishingContext } from '../domain/context';
import type { SpaceState } from './site-view';

/*
 * A space's content as a published site shows it, per revision. A revision never changes, so
 * what is read (one GetSpaceContent) and rendered (each page's HTML, on first view) is kept
 * in this process by revision id and the space's last update (its title and language come
 * with the pages) until memory pressure pushes it out.
 */

export interface PublishedPage {
  id: string;
  parentId: string | null;
  title: string;
  emoji: string;
  description: string;
  hidden: boolean;
  /** Left out of the site's search and what agents are given (llms.txt). */
  noIndex: boolean;
  /** Not for search engines: `noindex` on the page, left out of the sitemap. */
  noRobotsIndex: boolean;
  /** What the page shows of itself and of the site around it (GitBook's page layout). */
  layout: content.PageLayout;
  /** When the page was last changed (unset from a content service that predates it). */
  updatedAt?: Date;
  /** Its cover image, and the one dark themes show if it has one: a file of the space or an address (shown when its layout shows the cover). */
  cover?: { light: CoverImage; dark?: CoverImage };
  computed: boolean;
  /** The page's path in the space ("guides/install"). */
  path: string;
  body: string;
  childIds: string[];
}

export interface PublishedFile {
  id: string;
  name: string;
  contentType: string;
}

export interface PublishedContent {
  spaceId: string;
  revisionId: string;
  title: string;
  language: string;
  /** Pre-order: parents before children, siblings in order. */
  pages: PublishedPage[];
  byId: Map<string, PublishedPage>;
  byPath: Map<string, PublishedPage>;
  /** Pages a reader goes through with previous/next: not hidden, nor under a hidden page. */
  reading: PublishedPage[];
  files: Map<string, PublishedFile>;
  filesByName: Map<string, PublishedFile>;
  /** Rendered bodies, by the page and the site address they were rendered for. */
  rendered: Map<string, RenderedMarkdown>;
  /** The page tree's HTML, by the site address of the variant showing it. */
  navigation: Map<string, string>;
  /**
   * What the page tree's HTML and the links of rendered bodies depend on besides the bodies:
   * every page's place, slug, title, emoji and visibility, and the files' names.
   */
  outline: string;
}

/** Spaces' content by revision (ctx.caches.siteContents), weighed by their bodies' lengths. */
export const spaceContentCaches = { siteContents: declareCache<PublishedContent>(64) };

declare module '../domain/context' {
  interface PublishingCaches {
    siteContents: LruCache<PublishedContent>;
  }
}

/**
 * A space's content as content's GetSpaceContent gives it, arranged as sites read it. A page
 * answered with body_kept takes its body from `known` (the content of the request's
 * known_revision_id); undefined when one such page is not there.
 */
/** A file of the space or an address. */
export type CoverImage = { fileId: string } | { url: string };

const imageOf = (fileId: string, url: string): CoverImage | undefined => (fileId ? { fileId } : url ? { url } : undefined);

/** A page's cover as GetSpaceContent gives it: none without an image. */
function coverOf(cover: content.PageCover | undefined): PublishedPage['cover'] {
  const light = cover && imageOf(cover.fileId, cover.url);
  if (!cover || !light) return undefined;
  const dark = imageOf(cover.darkFileId, cover.darkUrl);
  return dark ? { light, dark } : { light };
}

export function publishedContentOf(response: content.GetSpaceContentResponse, known?: PublishedContent): PublishedContent | undefined {
  const pages: PublishedPage[] = [];
  const byId = new Map<string, PublishedPage>();
  const byPath = new Map<string, PublishedPage>();
  const kept = new Set<string>();
  const outline: string[] = [];
  for (const page of response.pages) {
    const body = page.bodyKept ? known?.byId.get(page.id)?.body : page.body;
    if (body === undefined) return undefined;
    if (page.bodyKept) kept.add(page.id);
    const parent = page.parentId ? byId.get(page.parentId) : undefined;
    const published: PublishedPage = {
      id: page.id,
      parentId: parent ? parent.id : null,
      title: page.title,
      emoji: page.emoji,
      description: page.description,
      hidden: page.hidden || Boolean(parent?.hidden),
      noIndex: page.noIndex,
      noRobotsIndex: page.noRobotsIndex,
      // Unset by a content service older than layouts: the defaults.
      layout: page.layout ?? DEFAULT_PAGE_LAYOUT,
      updatedAt: page.updateTime,
      cover: coverOf(page.cover),
      computed: page.kind === 'computed',
      path: parent ? `${parent.path}/${page.slug}` : page.slug,
      body,
      childIds: [],
    };
    parent?.childIds.push(published.id);
    pages.push(published);
    byId.set(published.id, published);
    if (!byPath.has(published.path)) byPath.set(published.path, published);
    outline.push(`${published.id}\t${published.parentId ?? ''}\t${published.path}\t${published.title}\t${published.emoji}\t${published.hidden}`);
  }
  const files = new Map<string, PublishedFile>();
  const filesByName = new Map<string, PublishedFile>();
  for (const file of response.files) {
    const entry = { id: file.id, name: file.name, contentType: file.contentType };
    files.set(file.id, entry);
    if (!filesByName.has(file.name)) filesByName.set(file.name, entry);
    outline.push(`${file.id}\t${file.name}`);
  }
  const published: PublishedContent = {
    spaceId: response.spaceId,
    revisionId: response.revisionId,
    title: response.title,
    language: response.language,
    pages,
    byId,
    byPath,
    reading: pages.filter((page) => !page.hidden),
    files,
    filesByName,
    rendered: new Map(),
    navigation: new Map(),
    outline: outline.join('\n'),
  };
  // The same outline as the content it follows (a merge that edited bodies): its page tree, and the
  // rendered bodies of the pages it kept, are what they were (they would render the same).
  if (known && known.outline === published.outline) {
    for (const [root, html] of known.navigation) published.navigation.set(root, html);
    for (const [key, rendered] of known.rendered) if (kept.has(key.slice(0, key.indexOf('\n')))) published.rendered.set(key, rendered);
  }
  return published;
}

/** What a space's content is kept under: its revision and its last write (its title and language change without a new revision). */
const contentKey = (space: Pick<SpaceState, 'revisionId' | 'updated'>) => `${space.revisionId}\n${space.updated}`;

/**
 * The space's content at `revisionId` ('' for its current one) in one GetSpaceContent, given
 * without the bodies this process holds from the content of the space it read last.
 */
async function readContent(
  ctx: PublishingContext,
  spaceId: string,
  revisionId: string,
): Promise<{ response: content.GetSpaceContentResponse; content: PublishedContent }> {
  const latest = latestKeysOf(ctx).get(spaceId);
  const known = latest === undefined ? undefined : ctx.caches.siteContents.get(latest);
  const read = (revision: string, knownRevisionId: string) =>
    clientsOf(ctx).content.getSpaceContent({ spaceId, revisionId: revision, evaluated: true, knownRevisionId });
  const response = await read(revisionId, known?.revisionId ?? '');
  // A kept body it no longer holds (not expected: the same revision's pages): everything again.
  const withKept = publishedContentOf(response, known);
  if (withKept) return { response, content: withKept };
  const whole = await read(response.revisionId, '');
  const content = publishedContentOf(whole);
  if (!content) throw new Error(`GetSpaceContent of space ${spaceId} kept a body without being given a revision`);
  return { response: whole, content };
}

/** Keeps the space's content under `key`, as the content of the space this process read last. */
function keepContent(ctx: PublishingContext, spaceId: string, key: string, content: PublishedContent): void {
  ctx.caches.siteContents.set(
    key,
    content,
    content.pages.reduce((sum, page) => sum + page.body.length * 3 + 512, 0),
  );
  const latestKeys = latestKeysOf(ctx);
  if (latestKeys.size >= MAX_LATEST_KEYS && !latestKeys.has(spaceId)) latestKeys.clear();
  latestKeys.set(spaceId, key);
}

/** The space's content at `revisionId` (one call to content the first time, shared by concurrent asks). */
export async function publishedContent(ctx: PublishingContext, space: Pick<SpaceState, 'id' | 'revisionId' | 'updated'>): Promise<PublishedContent> {
  const key = contentKey(space);
  const cache = ctx.caches.siteContents;
  const cached = cache.get(key);
  if (cached) return cached;
  return cache.shared(key, async () => {
    const { content } = await readContent(ctx, space.id, space.revisionId);
    keepContent(ctx, space.id, key, content);
    return content;
  });
}

/**
 * A space's current state and content, both in one GetSpaceContent, the content kept as
 * publishedContent keeps it: how a space written just now is read ahead of its next page
 * (site-view.ts). No state from a content service that does not say when the space was written.
 */
export async function currentContent(ctx: PublishingContext, spaceId: string): Promise<{ organizationId: string; state?: SpaceState }> {
  const { response, content } = await readContent(ctx, spaceId, '');
  if (!response.updateTime) return { organizationId: response.organizationId };
  const state: SpaceState = { id: spaceId, title: response.title, revisionId: response.revisionId, updated: response.updateTime.toISOString() };
  keepContent(ctx, spaceId, contentKey(state), content);
  return { organizationId: response.organizationId, state };
}

/** Each space's content a service instance read last, by its cache key (publishedContent): what the next read of the space need not be sent again. */
const latestKeysByContext = new WeakMap<PublishingContext, Map<string, string>>();
const MAX_LATEST_KEYS = 50_000;

function latestKeysOf(ctx: PublishingContext): Map<string, string> {
  let keys = latestKeysByContext.get(ctx);
  if (!keys) {
    keys = new Map();
    latestKeysByContext.set(ctx, keys);
  }
  return keys;
}

/** A page's body as HTML, rendered once per site address it is shown under. */
export function renderedBody(
  content: PublishedContent,
  page: PublishedPage,
  key: string,
  resolve: Required<Pick<RenderOptions, 'fileName' | 'pageTitle'>> & { href: (href: string) => string | null; src: (src: string) => string },
  options: Pick<RenderOptions, 'externalInNewTab'> = {},
): RenderedMarkdown {
  const cacheKey = `${page.id}\n${key}\n${options.externalInNewTab ? 'new-tab' : ''}`;
  let rendered = content.rendered.get(cacheKey);
  if (!rendered) {
    rendered = renderMarkdown(page.body, {
      resolveHref: resolve.href,
      resolveSrc: resolve.src,
      fileName: resolve.fileName,
      pageTitle: resolve.pageTitle,
      externalInNewTab: options.externalInNewTab,
    });
    content.rendered.set(cacheKey, rendered);
  }
  return rendered;
}
