import { escapeHtml } from '@quire/markdown';
import type { VariantAddresses } from './pages';
import type { SiteView } from './site-view';
import type { PublishedPage } from './space-content';

/*
 * What crawlers and AI agents read: robots.txt, sitemap.xml (public sites only), llms.txt and
 * every page as markdown (when the site's agentsContext is `included`).
 */

/** Crawlers of AI companies, refused when the site excludes agents. */
const AI_CRAWLERS = [
  'GPTBot',
  'ChatGPT-User',
  'OAI-SearchBot',
  'ClaudeBot',
  'Claude-Web',
  'anthropic-ai',
  'Google-Extended',
  'PerplexityBot',
  'CCBot',
  'Bytespider',
  'Applebot-Extended',
  'cohere-ai',
  'Meta-ExternalAgent',
];

export function robotsTxt(view: Pick<SiteView, 'site' | 'address'>): string {
  const { site, address } = view;
  if (site.visibility !== 'public') return 'User-agent: *\nDisallow: /\n';
  const lines = [];
  if (site.agentsContext === 'excluded') for (const agent of AI_CRAWLERS) lines.push(`User-agent: ${agent}`, 'Disallow: /', '');
  lines.push('User-agent: *', `Allow: ${address.basePath}`, '', `Sitemap: ${address.base}sitemap.xml`, '');
  return lines.join('\n');
}

/** Every page a search engine may index, as absolute addresses. */
export function sitemapXml(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((url) => `  <url><loc>${escapeHtml(url)}</loc></url>`).join('\n')}\n</urlset>\n`;
}

export interface ListedPage {
  page: PublishedPage;
  url: string;
  markdown: string;
}

/**
 * The pages readers navigate to (hidden ones left out), with their absolute addresses, for
 * `whom`: search engines (the sitemap) do not get noRobotsIndex pages, agents (llms.txt) do not
 * get noIndex ones.
 */
export function listedPages(addresses: VariantAddresses, whom: 'robots' | 'agents'): ListedPage[] {
  const origin = new URL(addresses.view.address.base).origin;
  return addresses.content.reading
    .filter((page) => (whom === 'robots' ? !page.noRobotsIndex : !page.noIndex))
    .map((page) => ({ page, url: `${origin}${addresses.page(page)}`, markdown: `${origin}${addresses.markdown(page)}` }));
}

export interface LlmsSection {
  title: string;
  pages: ListedPage[];
}

/** llms.txt (llmstxt.org): the site's title, then each variant's pages as links to their markdown. */
export function llmsTxt(view: SiteView, sections: LlmsSection[]): string {
  const lines = [`# ${view.site.title}`, ''];
  for (const section of sections) {
    lines.push(`## ${section.title}`, '');
    for (const { page, markdown } of section.pages)
      lines.push(`- [${page.title.replace(/[[\]]/g, '')}](${markdown})${page.description ? `: ${page.description}` : ''}`);
    lines.push('');
  }
  return lines.join('\n');
}

/**
 * llms-full.txt (beside llms.txt): the site's title, then each variant's pages in navigation
 * order, each page's markdown whole (as at its .md address) after a line naming that address.
 */
export function llmsFullTxt(view: SiteView, sections: LlmsSection[]): string {
  const parts = [`# ${view.site.title}\n`];
  for (const section of sections) {
    parts.push(`## ${section.title}\n`);
    for (const { page, markdown } of section.pages) parts.push(`Source: ${markdown}\n\n${pageMarkdown(page)}`);
  }
  return parts.join('\n');
}

/** A page as markdown for agents: its title and description, then its body as written. */
export function pageMarkdown(page: PublishedPage): string {
  return `# ${page.title}\n\n${page.description ? `${page.description}\n\n` : ''}${page.body.trim()}\n`;
}
