import { siteSpaceCustomizationOf } from '../domain/customization';
import { pageHtml } from './html';
import { frameOf, languageAlternates, pageContentOf, samePages, VariantAddresses } from './pages';
import type { Location, SiteView } from './site-view';
import type { PublishedContent, PublishedPage } from './space-content';

/*
 * A published page's HTML as a function of what it shows: the visitor's view of the site, where
 * the page is, and the content read for it. It reads and writes nothing else (its only effect is
 * keeping rendered bodies and navigation with the content it is given), so the same input is
 * the same page: what the render cache and the page's ETag rely on.
 */

/** What a page shows of content. */
export interface PageContentSources {
  /** The content of the location's variant. */
  variant: PublishedContent;
  /** Its page at the location's path. */
  page: PublishedPage;
  /**
   * The content of the section's other variants the visitor sees, by site space id, for the
   * variant switcher and the hreflang alternates (one left out is not offered).
   */
  peers: ReadonlyMap<string, PublishedContent>;
}

/** The variants of the location's section (or the site root) with their addresses, `current` for its own. */
function sectionVariants(view: SiteView, location: Location, current: VariantAddresses, peers: PageContentSources['peers']): VariantAddresses[] {
  const variants = view.variants.get(location.section?._id ?? '') ?? [];
  if (variants.length < 2) return [current];
  return variants.flatMap((siteSpace) => {
    if (siteSpace._id === location.siteSpace._id) return [current];
    const content = peers.get(siteSpace._id);
    return content ? [new VariantAddresses(view, { section: location.section, siteSpace, pagePath: '' }, content)] : [];
  });
}

export function renderPage(view: SiteView, location: Location, content: PageContentSources): string {
  const { page } = content;
  const addresses = new VariantAddresses(view, location, content.variant);
  const origin = new URL(view.address.base).origin;
  const peers = samePages(location, sectionVariants(view, location, addresses, content.peers));
  const frame = frameOf(view, {
    title: page.title === view.site.title ? page.title : `${page.title} | ${view.site.title}`,
    lang: content.variant.language,
    description: page.description,
    canonical: `${origin}${addresses.page(page)}`,
    noIndex: page.hidden || page.noRobotsIndex,
    location,
    peers,
    alternates: languageAlternates(view, location, peers, origin),
    markdown: view.site.agentsContext === 'included' ? addresses.markdown(page) : undefined,
    addresses,
  });
  // The customization's `externalLinks.target`: links of the body to other sites open in a new tab.
  const externalInNewTab = siteSpaceCustomizationOf(view.site, location.siteSpace).externalLinks.target === 'blank';
  return pageHtml(frame, { ...pageContentOf(addresses, page, { externalInNewTab }), ids: { page: page.id, siteSpace: location.siteSpace._id } });
}
