import { clientsOf } from '@quire/http';
import type { PublishingContext } from '../domain/context';
import type { SearchResult } from './html';
import { VariantAddresses } from './pages';
import { publishedContent } from './space-content';
import { shownVariants, type SiteView } from './site-view';

/** Results shown per space searched. */
const PER_SPACE = 10;

/**
 * The site's search: content's index of each space the visitor sees (its current revision),
 * one call per space, results linked to this site's pages and their sections' anchors.
 */
export async function searchSite(ctx: PublishingContext, view: SiteView, query: string): Promise<SearchResult[]> {
  const seen = new Set<string>();
  const searched = shownVariants(view).flatMap(({ section, siteSpace }) => {
    const space = view.spaces.get(siteSpace.spaceId);
    if (!space || seen.has(space.id)) return [];
    seen.add(space.id);
    return [{ section, siteSpace, space }];
  });
  const results = await Promise.all(
    searched.map(async ({ section, siteSpace, space }) => {
      const [found, content] = await Promise.all([
        clientsOf(ctx).content.searchSpaceContent({ spaceId: space.id, revisionId: space.revisionId, query, limit: PER_SPACE }),
        publishedContent(ctx, space),
      ]);
      const addresses = new VariantAddresses(view, { section, siteSpace, pagePath: '' }, content);
      return found.hits.flatMap((hit): SearchResult[] => {
        const page = content.byId.get(hit.pageId);
        if (!page || page.hidden) return [];
        const href = addresses.page(page);
        const trail = [];
        for (
          let parent = page.parentId ? content.byId.get(page.parentId) : undefined;
          parent;
          parent = parent.parentId ? content.byId.get(parent.parentId) : undefined
        )
          trail.unshift(parent.title);
        return [
          {
            title: page.title,
            href,
            ancestors: [section?.title, ...trail].filter(Boolean).join(' › ') || undefined,
            sections: hit.sections.filter((s) => s.anchor).map((s) => ({ title: s.title, href: `${href}#${encodeURIComponent(s.anchor)}`, excerpt: s.body })),
          },
        ];
      });
    }),
  );
  return results.flat();
}
