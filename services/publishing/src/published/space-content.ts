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
export function publishedContentOf(response: content.GetSpaceContentResponse, known?: PublishedContent): PublishedContent | undefined {
  const pages: PublishedPage[] = [];
  const byId = new Map<string, PublishedPage>();
  const byPath = new Map<string, PublishedPage>();
  for (const page of response.pages) {
    const body = page.bodyKept ? known?.byId.get(page.id)?.body : page.body;
    if (body === undefined) return undefined;
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
      computed: page.kind === 'computed',
      path: parent ? `${parent.path}/${page.slug}` : page.slug,
      body,
      childIds: [],
    };
    parent?.childIds.push(published.id);
    pages.push(published);
    byId.set(published.id, published);
    if (!byPath.has(published.path)) byPath.set(published.path, published);
  }
  const files = new Map<string, PublishedFile>();
  const filesByName = new Map<string, PublishedFile>();
  for (const file of response.files) {
    const entry = { id: file.id, name: file.name, contentType: file.contentType };
    files.set(file.id, entry);
    if (!filesByName.has(file.name)) filesByName.set(file.name, entry);
  }
  return {
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
  };
}

/** The space's content at `revisionId` (one call to content the first time, shared by concurrent asks). */
export async function publishedContent(ctx: PublishingContext, space: Pick<SpaceState, 'id' | 'revisionId' | 'updated'>): Promise<PublishedContent> {
  // The revision holds the pages; the space's title and language come with them and change
  // without a new revision: what was read is kept while neither changes.
  const key = `${space.revisionId}\n${space.updated}`;
  const cache = ctx.caches.siteContents;
  const cached = cache.get(key);
  if (cached) return cached;
  return cache.shared(key, async () => {
    // The space's content this process read last, if still kept: content leaves out the bodies it already holds.
    const latestKeys = latestKeysOf(ctx);
    const latest = latestKeys.get(space.id);
    const known = latest === undefined ? undefined : cache.get(latest);
    const read = (knownRevisionId: string) =>
      clientsOf(ctx).content.getSpaceContent({ spaceId: space.id, revisionId: space.revisionId, evaluated: true, knownRevisionId });
    // A kept body it no longer holds (not expected: the same revision's pages): everything again.
    const content = publishedContentOf(await read(known?.revisionId ?? ''), known) ?? publishedContentOf(await read(''));
    if (!content) throw new Error(`GetSpaceContent of space ${space.id} kept a body without being given a revision`);
    cache.set(
      key,
      content,
      content.pages.reduce((sum, page) => sum + page.body.length * 3 + 512, 0),
    );
    if (latestKeys.size >= MAX_LATEST_KEYS && !latestKeys.has(space.id)) latestKeys.clear();
    latestKeys.set(space.id, key);
    return content;
  });
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
