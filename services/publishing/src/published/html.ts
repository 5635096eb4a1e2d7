import { escapeHtml as e, type RenderedHeading } from '@quire/markdown';

/*
 * The HTML of published sites: semantic, accessible, no client framework (the pages work
 * without JavaScript). Every value placed in a page goes through `e` (escapeHtml). The
 * frame's own ids start with `_`, which heading anchors never contain, so they never collide.
 */

export interface Link {
  label: string;
  href: string;
  current?: boolean;
}

export interface TabGroup {
  label: string;
  tabs: Tab[];
}

export type Tab = Link | TabGroup;

export interface NavNode {
  label: string;
  href: string;
  emoji?: string;
  children: NavNode[];
}

export interface Alternate {
  hreflang: string;
  href: string;
}

export interface Frame {
  lang: string;
  siteTitle: string;
  /** The site root's path, for the title link, the stylesheet and the search form. */
  basePath: string;
  /** The document's <title>. */
  title: string;
  description?: string;
  canonical?: string;
  noIndex: boolean;
  tabs: Tab[];
  variants: Link[];
  /** The page in the site's other languages (hreflang). */
  alternates?: Alternate[];
  /** The query shown in the search box. */
  query?: string;
  /** The page as markdown, when AI agents may read the site. */
  markdown?: string;
}

export interface PageContent {
  title: string;
  emoji?: string;
  description?: string;
  bodyHtml: string;
  outline: RenderedHeading[];
  /** The page tree's HTML (navHtml), the same for every page of a variant. */
  navHtml: string;
  /** The current page's address in it. */
  href: string;
  previous?: Link;
  next?: Link;
}

export interface SearchResult {
  title: string;
  href: string;
  ancestors?: string;
  sections: Array<{ title: string; href: string; excerpt: string }>;
}

const isGroup = (tab: Tab): tab is TabGroup => 'tabs' in tab;
const current = (link: { current?: boolean }) => (link.current ? ' aria-current="page"' : '');

function tabsHtml(tabs: Tab[]): string {
  if (!tabs.length) return '';
  const item = (tab: Tab): string =>
    isGroup(tab)
      ? `<li class="tab-group"><details${tab.tabs.some((t) => !isGroup(t) && t.current) ? ' open' : ''}><summary>${e(tab.label)}</summary><ul>${tab.tabs.map(item).join('')}</ul></details></li>`
      : `<li><a href="${e(tab.href)}"${current(tab)}>${e(tab.label)}</a></li>`;
  return `<nav class="sections" aria-label="Sections"><ul>${tabs.map(item).join('')}</ul></nav>`;
}

function variantsHtml(variants: Link[]): string {
  if (variants.length < 2) return '';
  const chosen = variants.find((v) => v.current) ?? variants[0];
  return `<nav class="variants" aria-label="Variants"><details><summary>${e(chosen.label)}</summary><ul>${variants
    .map((v) => `<li><a href="${e(v.href)}"${current(v)}>${e(v.label)}</a></li>`)
    .join('')}</ul></details></nav>`;
}

/** A variant's page tree as nested lists, without a current page (withCurrent marks it). */
export function navHtml(nodes: NavNode[]): string {
  if (!nodes.length) return '';
  return `<ul>${nodes
    .map(
      (node) =>
        `<li><a href="${e(node.href)}">${node.emoji ? `<span aria-hidden="true">${e(node.emoji)}</span> ` : ''}${e(node.label)}</a>${navHtml(node.children)}</li>`,
    )
    .join('')}</ul>`;
}

/** The page tree with `href`'s link marked as the current page (every page has its own address in it). */
function withCurrent(tree: string, href: string): string {
  const link = `<a href="${e(href)}">`;
  const at = tree.indexOf(link);
  return at < 0 ? tree : `${tree.slice(0, at)}<a href="${e(href)}" aria-current="page">${tree.slice(at + link.length)}`;
}

function outlineHtml(headings: RenderedHeading[]): string {
  const shown = headings.filter((h) => h.level <= 3);
  if (!shown.length) return '';
  return `<aside class="outline" aria-labelledby="_outline-title"><h2 id="_outline-title">On this page</h2><ul>${shown
    .map((h) => `<li class="level-${h.level}"><a href="#${e(h.anchor)}">${e(h.text)}</a></li>`)
    .join('')}</ul></aside>`;
}

function frameHtml(frame: Frame, main: string, sidebar: string): string {
  const meta = [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    frame.description ? `<meta name="description" content="${e(frame.description)}">` : '',
    frame.noIndex ? `<meta name="robots" content="noindex, nofollow">` : '',
    frame.canonical ? `<link rel="canonical" href="${e(frame.canonical)}">` : '',
    ...(frame.alternates ?? []).map((alternate) => `<link rel="alternate" hreflang="${e(alternate.hreflang)}" href="${e(alternate.href)}">`),
    frame.markdown ? `<link rel="alternate" type="text/markdown" href="${e(frame.markdown)}">` : '',
    `<link rel="stylesheet" href="${e(frame.basePath)}~/site.css">`,
    // No icon of its own: say so, rather than have browsers ask the host's root for one.
    `<link rel="icon" href="data:,">`,
  ].join('');
  return `<!doctype html>
<html lang="${e(frame.lang)}"><head>${meta}<title>${e(frame.title)}</title></head>
<body><a class="skip" href="#_content">Skip to content</a>
<header class="site-header"><a class="site-title" href="${e(frame.basePath)}">${e(frame.siteTitle)}</a>
<form class="search" role="search" action="${e(frame.basePath)}~/search" method="get"><label for="_search-q">Search</label><input id="_search-q" name="q" type="search" value="${e(frame.query ?? '')}" placeholder="Search this site"><button type="submit">Go</button></form>
${tabsHtml(frame.tabs)}</header>
<div class="layout"><div class="sidebar">${variantsHtml(frame.variants)}${sidebar}</div>
<main id="_content">${main}</main></div>
<footer class="site-footer"><p>${e(frame.siteTitle)}</p></footer>
</body></html>`;
}

export function pageHtml(frame: Frame, page: PageContent): string {
  const pager =
    page.previous || page.next
      ? `<nav class="pager" aria-label="Previous and next">${page.previous ? `<a rel="prev" href="${e(page.previous.href)}"><span>Previous</span> ${e(page.previous.label)}</a>` : ''}${
          page.next ? `<a rel="next" href="${e(page.next.href)}"><span>Next</span> ${e(page.next.label)}</a>` : ''
        }</nav>`
      : '';
  const main = `<article><h1>${page.emoji ? `<span aria-hidden="true">${e(page.emoji)}</span> ` : ''}${e(page.title)}</h1>${
    page.description ? `<p class="description">${e(page.description)}</p>` : ''
  }<div class="body">${page.bodyHtml}</div>${pager}</article>${outlineHtml(page.outline)}`;
  const sidebar = `<nav class="pages" aria-label="Pages">${withCurrent(page.navHtml, page.href)}</nav>`;
  return frameHtml(frame, main, sidebar);
}

export function searchHtml(frame: Frame, query: string, results: SearchResult[]): string {
  const list = results.length
    ? `<ol class="results">${results
        .map(
          (r) =>
            `<li><h2><a href="${e(r.href)}">${e(r.title)}</a></h2>${r.ancestors ? `<p class="ancestors">${e(r.ancestors)}</p>` : ''}${
              r.sections.length ? `<ul>${r.sections.map((s) => `<li><a href="${e(s.href)}">${e(s.title)}</a><p>${e(s.excerpt)}</p></li>`).join('')}</ul>` : ''
            }</li>`,
        )
        .join('')}</ol>`
    : `<p>${query ? `No results for “${e(query)}”.` : 'Type words to search for.'}</p>`;
  return frameHtml(frame, `<h1>Search</h1><p role="status">${results.length} result${results.length === 1 ? '' : 's'}</p>${list}`, '');
}

export function messageHtml(frame: Frame, heading: string, text: string): string {
  return frameHtml(frame, `<h1>${e(heading)}</h1><p>${e(text)}</p>`, '');
}

/** The sites' one stylesheet: readable type, a sidebar layout that folds on small screens, light and dark. */
export const STYLESHEET = `:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--line:#d0d7de;--accent:#0b57d0;--soft:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--line:#30363d;--accent:#6cb6ff;--soft:#161b22}}
*{box-sizing:border-box}body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a[aria-current="page"]{font-weight:600;color:var(--fg)}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px 8px;z-index:2}
.site-header{display:flex;flex-wrap:wrap;gap:12px 24px;align-items:center;padding:12px 24px;border-bottom:1px solid var(--line)}
.site-title{font-weight:700;font-size:1.1rem;text-decoration:none;color:var(--fg)}
.search{display:flex;gap:6px;align-items:center;margin-left:auto}.search input{padding:4px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
.sections{flex-basis:100%}.sections ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}
.sections details ul{display:block;position:absolute;background:var(--bg);border:1px solid var(--line);padding:8px 12px}
.layout{display:grid;grid-template-columns:260px minmax(0,1fr);gap:32px;max-width:1280px;margin:0 auto;padding:24px}
@media (max-width:800px){.layout{grid-template-columns:1fr}}
.sidebar ul{list-style:none;padding-left:12px;margin:0}.sidebar>nav>ul{padding-left:0}.sidebar li{margin:2px 0}
.variants{margin-bottom:16px}.variants summary{cursor:pointer;border:1px solid var(--line);border-radius:6px;padding:4px 8px}
main{display:grid;grid-template-columns:minmax(0,1fr) 200px;gap:32px;align-items:start}@media (max-width:1100px){main{grid-template-columns:1fr}}
main>h1,main>p,main>ol{grid-column:1}
.description{color:var(--muted);font-size:1.1rem}
.body img{max-width:100%}.body pre{background:var(--soft);padding:12px;overflow:auto;border-radius:6px}.body code{font-size:.9em}
.body table{border-collapse:collapse}.body td,.body th{border:1px solid var(--line);padding:4px 8px}
.hint{border-left:4px solid var(--accent);background:var(--soft);padding:4px 16px;margin:16px 0;border-radius:4px}.hint-success{border-color:#1a7f37}.hint-warning{border-color:#bf8700}.hint-danger{border-color:#cf222e}
.tabs{border:1px solid var(--line);border-radius:6px;padding:4px 12px;margin:16px 0}.tab summary{cursor:pointer;font-weight:600}
.body figure{margin:16px 0}.body figcaption{font-size:.85rem;color:var(--muted)}.embed,.file,.content-ref{border:1px solid var(--line);border-radius:6px;padding:0 12px}
.stepper{counter-reset:step}.step{counter-increment:step;border-left:2px solid var(--line);padding-left:16px}.step::before{content:counter(step);font-weight:700;color:var(--muted)}
.columns{display:flex;flex-wrap:wrap;gap:24px}.column{flex:1 1 240px}
.anchor{opacity:.4;text-decoration:none;font-size:.8em}h2:hover .anchor,h3:hover .anchor{opacity:1}
.outline{position:sticky;top:16px;font-size:.9rem}.outline h2{font-size:.9rem;text-transform:uppercase;color:var(--muted)}.outline ul{list-style:none;padding:0}.outline .level-3{padding-left:12px}
.pager{display:flex;justify-content:space-between;gap:16px;margin-top:48px;border-top:1px solid var(--line);padding-top:16px}
.pager a{display:block;border:1px solid var(--line);border-radius:8px;padding:8px 12px;text-decoration:none}.pager span{display:block;font-size:.8rem;color:var(--muted)}.pager a[rel=next]{margin-left:auto;text-align:right}
.results{padding-left:20px}.results h2{font-size:1.1rem;margin-bottom:0}.ancestors{color:var(--muted);font-size:.85rem;margin:0}
.site-footer{border-top:1px solid var(--line);padding:12px 24px;color:var(--muted);font-size:.85rem}
`;
