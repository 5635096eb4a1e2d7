import { createHash } from 'node:crypto';
import { escapeHtml as e, type RenderedHeading } from '@quire/markdown';
import { remembered } from '@quire/runtime';

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

/** A header link (a button, or a menu of links when it has some). */
export interface HeaderItem {
  label: string;
  href?: string;
  style: 'link' | 'button-primary' | 'button-secondary';
  links: Link[];
}

/** An image for each theme. */
export interface Themed {
  light: string;
  dark: string;
}

/** How the site's customization dresses the frame (look.ts, pages.ts lookOf). */
export interface Look {
  /** The theme before the reader chooses one. */
  mode: 'light' | 'dark' | 'system';
  /** The reader may switch between light and dark (a button, kept across pages by SITE_SCRIPT). */
  toggle: boolean;
  /** The theme stylesheet (colours, corners, fonts). */
  stylesheet?: string;
  logo?: Themed;
  favicon?: Themed | { emoji: string };
  headerLinks: HeaderItem[];
  footerGroups: Array<{ title: string; links: Link[] }>;
  footerLogo?: Themed;
  copyright?: string;
  announcement?: { message: string; style: 'info' | 'warning' | 'danger' | 'success'; link?: Link };
  /** Previous and next links under each page. */
  pagination: boolean;
  /** "Published with Quire" in the footer. */
  trademark: boolean;
  /** The site's social accounts shown in the footer. */
  socialLinks: Link[];
  /** The address of the site's privacy policy (a footer link). */
  privacyPolicy?: string;
  /** The image shown where a link to the site is shared (Open Graph). */
  socialPreview?: string;
  /** "Was this page helpful?" under each page (a form posted to the site's ~/feedback). */
  feedback: boolean;
}

/** What a frame with no customization of its own looks like (a 404 where no site is). */
export const PLAIN_LOOK: Look = {
  mode: 'system',
  toggle: false,
  headerLinks: [],
  footerGroups: [],
  pagination: true,
  trademark: false,
  socialLinks: [],
  feedback: false,
};

/**
 * The one script a site's page may run (the CSP allows it by its digest, SITE_SCRIPT_HASH): it
 * applies the theme the reader chose on this site before the page paints, and makes the theme
 * button switch it and keep the choice (localStorage, per site); it hides the announcement the
 * reader closed (kept per site by the announcement's digest: a new one shows again). Without
 * script, the site's default theme and the announcement show, and both buttons stay hidden.
 */
export const SITE_SCRIPT =
  '(()=>{const d=document.documentElement,k="quire-theme:"+d.dataset.site,n="quire-announcement:"+d.dataset.site;try{const t=localStorage.getItem(k);if(t==="light"||t==="dark")d.dataset.theme=t}catch(e){}' +
  'document.addEventListener("DOMContentLoaded",()=>{const b=document.getElementById("_theme");if(b){b.hidden=false;' +
  'b.addEventListener("click",()=>{const m=d.dataset.mode,dark=d.dataset.theme?d.dataset.theme==="dark":m==="dark"||(m==="system"&&matchMedia("(prefers-color-scheme: dark)").matches);' +
  'd.dataset.theme=dark?"light":"dark";try{localStorage.setItem(k,d.dataset.theme)}catch(e){}})}' +
  'const a=document.getElementById("_announcement"),x=document.getElementById("_dismiss");if(!a||!x)return;try{if(localStorage.getItem(n)===a.dataset.digest){a.hidden=true;return}}catch(e){}' +
  'x.hidden=false;x.addEventListener("click",()=>{a.hidden=true;try{localStorage.setItem(n,a.dataset.digest)}catch(e){}})})})()';
export const SITE_SCRIPT_HASH = `'sha256-${createHash('sha256').update(SITE_SCRIPT).digest('base64')}'`;

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
  look: Look;
}

/** What a page shows of itself and of the site around it (GitBook's page layout options). */
export interface PageLayoutShown {
  /** 'wide': the content column takes the width of the window. */
  width: string;
  /** The page's title (its h1) and description. */
  title: boolean;
  description: boolean;
  /** The site's page tree beside the page; without it, the page takes the full width. */
  tableOfContents: boolean;
  /** "On this page". */
  outline: boolean;
  /** Previous and next links, when the site's customization shows them too. */
  pagination: boolean;
  /** The links of the body's headings to themselves ('#'). */
  anchors: boolean;
  /** When the page was last changed. */
  metadata: boolean;
  /** The page's cover image, and its size ('hero', 'full' or 'background'). */
  cover: boolean;
  coverSize: string;
  /** The page's actions: its markdown, when the site gives agents its pages. */
  actions: boolean;
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
  layout: PageLayoutShown;
  /** When the page was last changed: shown when its layout shows its metadata. */
  updatedAt?: Date;
  /** The addresses of its cover image for each theme: shown when its layout shows the cover. */
  cover?: Themed;
  /** The page and its site space, as its feedback form names them. */
  ids?: { page: string; siteSpace: string };
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

/** An image for each theme: each shows in its own (site.css). */
function themedImg(image: Themed, className: string, alt: string): string {
  if (image.light === image.dark) return `<img class="${className}" src="${e(image.light)}" alt="${e(alt)}">`;
  return `<img class="${className} only-light" src="${e(image.light)}" alt="${e(alt)}"><img class="${className} only-dark" src="${e(image.dark)}" alt="${e(alt)}">`;
}

function iconLinks(favicon: Look['favicon']): string {
  // No icon of its own: say so, rather than have browsers ask the host's root for one.
  if (!favicon) return `<link rel="icon" href="data:,">`;
  if ('emoji' in favicon) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><text y=".9em" font-size="90">${e(favicon.emoji)}</text></svg>`;
    return `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(svg)}">`;
  }
  if (favicon.light === favicon.dark) return `<link rel="icon" href="${e(favicon.light)}">`;
  return `<link rel="icon" href="${e(favicon.light)}" media="(prefers-color-scheme: light)"><link rel="icon" href="${e(favicon.dark)}" media="(prefers-color-scheme: dark)">`;
}

const linkHtml = (link: Link, className?: string) => `<a${className ? ` class="${className}"` : ''} href="${e(link.href)}">${e(link.label)}</a>`;

function headerLinksHtml(items: HeaderItem[]): string {
  if (!items.length) return '';
  const item = (entry: HeaderItem) => {
    const className = entry.style === 'link' ? undefined : entry.style;
    if (entry.links.length)
      return `<li><details class="menu"><summary${className ? ` class="${className}"` : ''}>${e(entry.label)}</summary><ul>${entry.links.map((link) => `<li>${linkHtml(link)}</li>`).join('')}</ul></details></li>`;
    return `<li>${entry.href ? linkHtml({ label: entry.label, href: entry.href }, className) : `<span>${e(entry.label)}</span>`}</li>`;
  };
  return `<nav class="header-links" aria-label="Site links"><ul>${items.map(item).join('')}</ul></nav>`;
}

/** The banner, with a button to close it (SITE_SCRIPT: shown with script only; closed stays closed until the banner changes). */
function announcementHtml(announcement: Look['announcement']): string {
  if (!announcement) return '';
  const text = `${e(announcement.message)}${announcement.link ? ` ${linkHtml(announcement.link)}` : ''}`;
  const digest = createHash('sha256').update(`${announcement.style}\n${text}`).digest('base64url').slice(0, 16);
  return `<div id="_announcement" class="announcement announcement-${announcement.style}" role="note" data-digest="${digest}"><p>${text}</p><button id="_dismiss" class="dismiss" type="button" hidden aria-label="Close the announcement">×</button></div>`;
}

/** What a page says where a link to it is shared (Open Graph, and the card it makes on X). */
function openGraph(frame: Frame): string {
  const image = frame.look.socialPreview;
  return [
    `<meta property="og:type" content="website">`,
    `<meta property="og:site_name" content="${e(frame.siteTitle)}">`,
    `<meta property="og:title" content="${e(frame.title)}">`,
    frame.description ? `<meta property="og:description" content="${e(frame.description)}">` : '',
    frame.canonical ? `<meta property="og:url" content="${e(frame.canonical)}">` : '',
    image ? `<meta property="og:image" content="${e(image)}">` : '',
    `<meta name="twitter:card" content="${image ? 'summary_large_image' : 'summary'}">`,
  ].join('');
}

function footerHtml(frame: Frame): string {
  const { look } = frame;
  const groups = look.footerGroups.length
    ? `<nav class="footer-groups" aria-label="Footer">${look.footerGroups
        .map((group) => `<div><h2>${e(group.title)}</h2><ul>${group.links.map((link) => `<li>${linkHtml(link)}</li>`).join('')}</ul></div>`)
        .join('')}</nav>`
    : '';
  const social = look.socialLinks.length
    ? `<ul class="social-links" aria-label="Social accounts">${look.socialLinks.map((link) => `<li>${linkHtml(link)}</li>`).join('')}</ul>`
    : '';
  const privacy = look.privacyPolicy ? `<p class="privacy"><a href="${e(look.privacyPolicy)}">Privacy policy</a></p>` : '';
  return `<footer class="site-footer">${look.footerLogo ? themedImg(look.footerLogo, 'footer-logo', frame.siteTitle) : ''}${groups}${social}<p>${e(look.copyright ?? frame.siteTitle)}</p>${privacy}${
    look.trademark ? '<p class="trademark">Published with Quire</p>' : ''
  }</footer>`;
}

/** `layoutClasses`: how the page lays out the sidebar and its content (pageHtml, the stylesheet's `.layout.<class>`). */
function frameHtml(frame: Frame, main: string, sidebar: string, layoutClasses: string[] = []): string {
  const { look } = frame;
  const meta = [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    frame.description ? `<meta name="description" content="${e(frame.description)}">` : '',
    frame.noIndex ? `<meta name="robots" content="noindex, nofollow">` : '',
    frame.canonical ? `<link rel="canonical" href="${e(frame.canonical)}">` : '',
    openGraph(frame),
    ...(frame.alternates ?? []).map((alternate) => `<link rel="alternate" hreflang="${e(alternate.hreflang)}" href="${e(alternate.href)}">`),
    frame.markdown ? `<link rel="alternate" type="text/markdown" href="${e(frame.markdown)}">` : '',
    `<link rel="stylesheet" href="${e(frame.basePath)}~/site.css?v=${STYLESHEET_VERSION}">`,
    look.stylesheet ? `<link rel="stylesheet" href="${e(look.stylesheet)}">` : '',
    iconLinks(look.favicon),
    look.toggle || look.announcement ? `<script>${SITE_SCRIPT}</script>` : '',
  ].join('');
  const brand = look.logo ? themedImg(look.logo, 'logo', frame.siteTitle) : e(frame.siteTitle);
  const toggle = look.toggle ? `<button id="_theme" class="theme-toggle" type="button" hidden aria-label="Switch between light and dark theme">◐</button>` : '';
  return `<!doctype html>
<html lang="${e(frame.lang)}" data-mode="${look.mode}" data-site="${e(frame.basePath)}"><head>${meta}<title>${e(frame.title)}</title></head>
<body><a class="skip" href="#_content">Skip to content</a>
${announcementHtml(look.announcement)}<header class="site-header"><a class="site-title" href="${e(frame.basePath)}">${brand}</a>
${headerLinksHtml(look.headerLinks)}<form class="search" role="search" action="${e(frame.basePath)}~/search" method="get"><label for="_search-q">Search</label><input id="_search-q" name="q" type="search" value="${e(frame.query ?? '')}" placeholder="Search this site"><button type="submit">Go</button></form>${toggle}
${tabsHtml(frame.tabs)}</header>
<div class="${['layout', ...layoutClasses].join(' ')}"><div class="sidebar">${variantsHtml(frame.variants)}${sidebar}</div>
<main id="_content">${main}</main></div>
${footerHtml(frame)}
</body></html>`;
}

const COVER_SIZES = new Set(['hero', 'full', 'background']);
const FEEDBACK_BUTTONS = (
  [
    ['good', 'Yes'],
    ['ok', 'Somewhat'],
    ['bad', 'No'],
  ] as const
)
  .map(([rating, label]) => `<button type="submit" name="rating" value="${rating}">${label}</button>`)
  .join('');

/** A day's date in a site's language ("2 December 2026"), in UTC: the same page for every reader, whatever their time zone. */
const dayFormatOf = remembered(100, (lang) => {
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: 'UTC' });
  } catch {
    return new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });
  }
});
const dayOf = (lang: string, date: Date) => dayFormatOf(lang).format(date);

export function pageHtml(frame: Frame, page: PageContent): string {
  const { layout } = page;
  const pager =
    frame.look.pagination && layout.pagination && (page.previous || page.next)
      ? `<nav class="pager" aria-label="Previous and next">${page.previous ? `<a rel="prev" href="${e(page.previous.href)}"><span>Previous</span> ${e(page.previous.label)}</a>` : ''}${
          page.next ? `<a rel="next" href="${e(page.next.href)}"><span>Next</span> ${e(page.next.label)}</a>` : ''
        }</nav>`
      : '';
  const title = layout.title ? `<h1>${page.emoji ? `<span aria-hidden="true">${e(page.emoji)}</span> ` : ''}${e(page.title)}</h1>` : '';
  const description = layout.description && page.description ? `<p class="description">${e(page.description)}</p>` : '';
  const outline = layout.outline ? outlineHtml(page.outline) : '';
  const actions =
    layout.actions && frame.markdown ? `<p class="page-actions"><a href="${e(frame.markdown)}" type="text/markdown">View as Markdown</a></p>` : '';
  const metadata =
    layout.metadata && page.updatedAt
      ? `<p class="page-meta">Last updated <time datetime="${page.updatedAt.toISOString()}">${e(dayOf(frame.lang, page.updatedAt))}</time></p>`
      : '';
  // Decorative: the title beside it says what the page is.
  const cover =
    layout.cover && page.cover
      ? `<div class="page-cover cover-${COVER_SIZES.has(layout.coverSize) ? layout.coverSize : 'hero'}">${themedImg(page.cover, 'cover', '')}</div>`
      : '';
  const feedback =
    frame.look.feedback && page.ids
      ? `<form class="page-feedback" method="post" action="${e(frame.basePath)}~/feedback"><input type="hidden" name="page" value="${e(page.ids.page)}"><input type="hidden" name="space" value="${e(page.ids.siteSpace)}"><p>Was this page helpful?</p>${FEEDBACK_BUTTONS}</form>`
      : '';
  const main = `<article>${cover}${title}${description}${actions}<div class="body">${page.bodyHtml}</div>${metadata}${feedback}${pager}</article>${outline}`;
  const sidebar = layout.tableOfContents ? `<nav class="pages" aria-label="Pages">${withCurrent(page.navHtml, page.href)}</nav>` : '';
  const layoutClasses = [
    ...(layout.tableOfContents ? [] : ['no-toc']),
    ...(layout.outline ? [] : ['no-outline']),
    ...(layout.width === 'wide' ? ['wide'] : []),
    ...(layout.anchors ? [] : ['no-anchors']),
  ];
  return frameHtml(frame, main, sidebar, layoutClasses);
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

/** A heading and a line of text (a link to `href` when given) in the site's frame. */
export function messageHtml(frame: Frame, heading: string, text: string, href?: string): string {
  return frameHtml(frame, `<h1>${e(heading)}</h1><p>${href ? `<a href="${e(href)}">${e(text)}</a>` : e(text)}</p>`, '');
}

/** The selectors under which a page shows its dark theme: the reader's choice, else the site's default, else the system's. */
export const DARK = {
  chosen: ':root[data-theme=dark],:root[data-mode=dark]:not([data-theme=light])',
  system: ':root[data-mode=system]:not([data-theme=light])',
};

const LIGHT_COLOURS =
  'color-scheme:light;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--line:#d0d7de;--soft:#f6f8fa;' +
  '--hl-keyword:#cf222e;--hl-string:#0a3069;--hl-comment:#6e7781;--hl-number:#0550ae;--hl-title:#8250df;--hl-type:#953800;--hl-tag:#116329';
const DARK_COLOURS =
  'color-scheme:dark;--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--line:#30363d;--soft:#161b22;' +
  '--hl-keyword:#ff7b72;--hl-string:#a5d6ff;--hl-comment:#8b949e;--hl-number:#79c0ff;--hl-title:#d2a8ff;--hl-type:#ffa657;--hl-tag:#7ee787';

/**
 * The sites' one stylesheet: readable type, a sidebar layout that folds on small screens, light
 * and dark (the reader's choice, the site's default or the system's: DARK). A site's theme
 * stylesheet (look.ts) sets its colours, corners and fonts through the custom properties here.
 */
export const STYLESHEET = `:root{${LIGHT_COLOURS};--accent:#0b57d0;--info:#787878;--success:#1a7f37;--warning:#bf8700;--danger:#cf222e;--radius:6px;--font-body:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;--font-heading:var(--font-body);--font-mono:ui-monospace,monospace;--link-color:var(--accent);--shadow:none}
${DARK.chosen}{${DARK_COLOURS};--accent:#6cb6ff}
@media (prefers-color-scheme:dark){${DARK.system}{${DARK_COLOURS};--accent:#6cb6ff}}
:root{--tint-bg:var(--bg)}
.only-dark{display:none}${DARK.chosen
  .split(',')
  .map((selector) => `${selector} .only-dark`)
  .join(',')}{display:inline}${DARK.chosen
  .split(',')
  .map((selector) => `${selector} .only-light`)
  .join(',')}{display:none}
@media (prefers-color-scheme:dark){${DARK.system} .only-dark{display:inline}${DARK.system} .only-light{display:none}}
*{box-sizing:border-box}body{margin:0;font:16px/1.6 var(--font-body);color:var(--fg);background:var(--bg)}
h1,h2,h3,h4{font-family:var(--font-heading)}code,pre{font-family:var(--font-mono)}
a{color:var(--link-color);text-decoration-color:var(--accent)}a[aria-current="page"]{font-weight:600;color:var(--fg)}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px 8px;z-index:2}
.announcement{position:relative;padding:8px 48px;text-align:center;background:color-mix(in srgb,var(--info) 16%,var(--bg))}.announcement p{margin:0}
.announcement .dismiss{position:absolute;top:4px;right:12px;border:0;background:none;color:inherit;font-size:1.25rem;line-height:1;cursor:pointer;padding:4px 8px}
.announcement-success{background:color-mix(in srgb,var(--success) 16%,var(--bg))}.announcement-warning{background:color-mix(in srgb,var(--warning) 18%,var(--bg))}.announcement-danger{background:color-mix(in srgb,var(--danger) 16%,var(--bg))}
.site-header{display:flex;flex-wrap:wrap;gap:12px 24px;align-items:center;padding:12px 24px;border-bottom:1px solid var(--line);background:var(--tint-bg)}
.site-title{font-weight:700;font-size:1.1rem;text-decoration:none;color:var(--fg);font-family:var(--font-heading)}.logo{height:32px;width:auto;vertical-align:middle}
.header-links ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}.header-links .menu ul{display:block;position:absolute;background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);padding:8px 12px}.header-links summary{cursor:pointer}
.button-primary,.button-secondary{display:inline-block;padding:4px 12px;border-radius:var(--radius);text-decoration:none;box-shadow:var(--shadow)}.button-primary{background:var(--accent);color:#fff}.button-secondary{border:1px solid var(--accent);color:var(--accent)}
.search{display:flex;gap:6px;align-items:center;margin-left:auto}.search input,.search button{padding:4px 8px;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg)}.search button{background:var(--soft);cursor:pointer}
.theme-toggle{border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg);cursor:pointer;padding:2px 8px}
.sections{flex-basis:100%}.sections ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}
.sections details ul{display:block;position:absolute;background:var(--bg);border:1px solid var(--line);padding:8px 12px}
.layout{display:grid;grid-template-columns:260px minmax(0,1fr);gap:32px;max-width:1280px;margin:0 auto;padding:24px}
@media (max-width:800px){.layout{grid-template-columns:1fr}}
.layout.wide{max-width:none}.layout.no-toc{grid-template-columns:minmax(0,1fr)}.layout.no-toc>.sidebar:empty{display:none}
.sidebar ul{list-style:none;padding-left:12px;margin:0}.sidebar>nav>ul{padding-left:0}.sidebar li{margin:2px 0}
.variants{margin-bottom:16px}.variants summary{cursor:pointer;border:1px solid var(--line);border-radius:var(--radius);padding:4px 8px}
main{display:grid;grid-template-columns:minmax(0,1fr) 200px;gap:32px;align-items:start}@media (max-width:1100px){main{grid-template-columns:1fr}}
.no-outline main{grid-template-columns:minmax(0,1fr)}
main>h1,main>p,main>ol{grid-column:1}
.description{color:var(--muted);font-size:1.1rem}
.body img{max-width:100%}.body pre{background:var(--soft);padding:12px;overflow:auto;border-radius:var(--radius)}.body code{font-size:.9em}
.hljs-keyword,.hljs-selector-tag,.hljs-doctag{color:var(--hl-keyword)}.hljs-string,.hljs-regexp,.hljs-meta .hljs-string{color:var(--hl-string)}.hljs-comment,.hljs-quote,.hljs-meta{color:var(--hl-comment);font-style:italic}
.hljs-number,.hljs-literal,.hljs-attr,.hljs-attribute,.hljs-variable,.hljs-symbol{color:var(--hl-number)}.hljs-title,.hljs-section{color:var(--hl-title)}.hljs-built_in,.hljs-type,.hljs-params{color:var(--hl-type)}.hljs-name,.hljs-tag,.hljs-selector-class,.hljs-selector-id{color:var(--hl-tag)}
.body table{border-collapse:collapse}.body td,.body th{border:1px solid var(--line);padding:4px 8px}
.hint{border-left:4px solid var(--info);background:var(--soft);padding:4px 16px;margin:16px 0;border-radius:var(--radius)}.hint-success{border-color:var(--success)}.hint-warning{border-color:var(--warning)}.hint-danger{border-color:var(--danger)}
.tabs{border:1px solid var(--line);border-radius:var(--radius);padding:4px 12px;margin:16px 0}.tab summary{cursor:pointer;font-weight:600}
.body figure{margin:16px 0}.body figcaption{font-size:.85rem;color:var(--muted)}.embed,.file,.content-ref{border:1px solid var(--line);border-radius:var(--radius);padding:0 12px}
.stepper{counter-reset:step}.step{counter-increment:step;border-left:2px solid var(--line);padding-left:16px}.step::before{content:counter(step);font-weight:700;color:var(--muted)}
.columns{display:flex;flex-wrap:wrap;gap:24px}.column{flex:1 1 240px}
.anchor{opacity:.4;text-decoration:none;font-size:.8em}h2:hover .anchor,h3:hover .anchor{opacity:1}.no-anchors .anchor{display:none}
.page-actions{margin:.25rem 0 1rem;font-size:.875rem}.page-actions a{color:var(--link-color)}
.page-meta{margin:2rem 0 0;color:var(--muted);font-size:.875rem}
.page-feedback{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:2rem 0 0;padding:.75rem 1rem;border:1px solid var(--line);border-radius:var(--radius)}.page-feedback p{margin:0 .5rem 0 0}.page-feedback button{font:inherit;padding:.25rem .75rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--soft);color:var(--fg);cursor:pointer}
.social-links{display:flex;flex-wrap:wrap;gap:1rem;justify-content:center;list-style:none;margin:1rem 0;padding:0}.site-footer .privacy{font-size:.875rem}
.page-cover{margin:0 0 1.5rem;overflow:hidden;border-radius:var(--radius);background:var(--soft);line-height:0}.page-cover img{width:100%;height:240px;object-fit:cover}
.page-cover.cover-full img{height:320px}.page-cover.cover-background{margin-bottom:-5rem}.page-cover.cover-background img{height:320px;opacity:.45}
.page-cover.cover-background+h1{position:relative;padding:0 1rem}
.outline{position:sticky;top:16px;font-size:.9rem}.outline h2{font-size:.9rem;text-transform:uppercase;color:var(--muted)}.outline ul{list-style:none;padding:0}.outline .level-3{padding-left:12px}
.pager{display:flex;justify-content:space-between;gap:16px;margin-top:48px;border-top:1px solid var(--line);padding-top:16px}
.pager a{display:block;border:1px solid var(--line);border-radius:var(--radius);padding:8px 12px;text-decoration:none;box-shadow:var(--shadow)}.pager span{display:block;font-size:.8rem;color:var(--muted)}.pager a[rel=next]{margin-left:auto;text-align:right}
.results{padding-left:20px}.results h2{font-size:1.1rem;margin-bottom:0}.ancestors{color:var(--muted);font-size:.85rem;margin:0}
.site-footer{border-top:1px solid var(--line);padding:12px 24px;color:var(--muted);font-size:.85rem;background:var(--tint-bg)}
.footer-groups{display:flex;flex-wrap:wrap;gap:24px 48px}.footer-groups h2{font-size:.9rem;color:var(--fg)}.footer-groups ul{list-style:none;padding:0}.footer-logo{height:24px;width:auto}
`;

/** The stylesheet's digest, in its address: a deploy that changes it changes the address, so the old one's year-long cache never hides it. */
export const STYLESHEET_VERSION = createHash('sha256').update(STYLESHEET).digest('base64url').slice(0, 16);
