import assert from 'node:assert/strict';
import { describe, it } from '@jest/globals';
import { DEFAULT_PAGE_LAYOUT, type PageLayout } from '@quire/contract';
import { content as proto } from '@quire/proto';
import type { SiteDoc, SiteSpaceDoc } from '../db/models';
import type { SiteAddress } from './address';
import { defaultCustomization, siteCustomizationJson, siteSpaceCustomizationOf, siteSpaceOverridesJson } from '../domain/customization';
import { STYLESHEET, SITE_SCRIPT } from './html';
import { fontFile, themeCss } from './look';
import { renderPage } from './render';
import type { Location, SiteView } from './site-view';
import { publishedContentOf, type PublishedContent } from './space-content';

/*
 * renderPage is a function of the visitor's view, the location and the content: these build
 * each by hand (no service, no datastore) and read the HTML it makes.
 */

const at = new Date('2024-01-01T00:00:00Z');

function siteOf(overrides: Partial<SiteDoc> = {}): SiteDoc {
  return {
    _id: 'site1',
    organizationId: 'org1',
    type: 'basic',
    title: 'Acme Docs',
    visibility: 'public',
    published: true,
    agentsContext: 'excluded',
    adaptiveContent: false,
    positionSeq: 2,
    visitorAuth: { privateKey: 'k', backend: 'custom' },
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

const variant = (id: string, spaceId: string, path: string, position: number): SiteSpaceDoc => ({
  _id: id,
  siteId: 'site1',
  organizationId: 'org1',
  sectionId: null,
  spaceId,
  path,
  position,
  spaceDeleted: false,
  createdAt: at,
});

const english = variant('ss-en', 'space-en', 'en', 1);
const french = variant('ss-fr', 'space-fr', 'fr', 2);

/** A site at https://docs.example.com/ without sections, whose root has the given variants (the first is the default). */
function viewOf(variants: SiteSpaceDoc[], site = siteOf()): SiteView {
  const address: SiteAddress = { site, version: 'v1', base: 'https://docs.example.com/', basePath: '/', segments: [], needsSlash: false };
  return {
    site,
    address,
    sectioned: false,
    sections: [],
    groups: [],
    variants: new Map([['', variants]]),
    spaces: new Map(
      variants.map((v) => [v.spaceId, { id: v.spaceId, title: v.spaceId === 'space-fr' ? 'Français' : 'English', revisionId: 'r1', updated: '' }]),
    ),
    defaults: new Set([variants[0]._id]),
    version: 'view-version',
  };
}

type PageInput = {
  id: string;
  title: string;
  slug: string;
  parentId?: string;
  body?: string;
  hidden?: boolean;
  noRobotsIndex?: boolean;
  description?: string;
  layout?: PageLayout;
};

function contentOf(spaceId: string, language: string, pages: PageInput[]): PublishedContent {
  const content = publishedContentOf(
    proto.GetSpaceContentResponse.fromPartial({
      spaceId,
      revisionId: `rev-${spaceId}`,
      title: spaceId,
      language,
      pages: pages.map((page) => ({ kind: 'document', ...page })),
      files: [{ id: 'file1', name: 'diagram.png', contentType: 'image/png' }],
    }),
  );
  assert.ok(content);
  return content;
}

const englishPages: PageInput[] = [
  { id: 'intro', title: 'Introduction', slug: 'intro', body: 'Welcome. Read [the install guide](/pages/install).' },
  { id: 'guides', title: 'Guides', slug: 'guides', body: 'All guides.' },
  {
    id: 'install',
    title: 'Install',
    slug: 'install',
    parentId: 'guides',
    description: 'How to install',
    body: '## Requirements\n\nSee ![a diagram](/files/file1) and [the intro](../intro.md).',
  },
  { id: 'secret', title: 'Internal notes', slug: 'internal', body: 'Hidden.', hidden: true },
];
const englishContent = () => contentOf('space-en', 'en', englishPages);
const frenchContent = () =>
  contentOf('space-fr', 'fr', [
    { id: 'fr-intro', title: 'Introduction FR', slug: 'intro', body: 'Bienvenue.' },
    { id: 'fr-guides', title: 'Guides FR', slug: 'guides' },
    { id: 'fr-install', title: 'Installer', slug: 'install', parentId: 'fr-guides' },
  ]);

const locationOf = (siteSpace: SiteSpaceDoc, pagePath: string): Location => ({ siteSpace, pagePath });

function render(view: SiteView, location: Location, variantContent: PublishedContent, peers = new Map<string, PublishedContent>()): string {
  const page = location.pagePath ? variantContent.byPath.get(location.pagePath) : variantContent.reading[0];
  assert.ok(page, `a page at ${location.pagePath}`);
  return renderPage(view, location, { variant: variantContent, page, peers });
}

describe('publishedContentOf', () => {
  it('takes a body content kept (body_kept) from the revision it was told is held, and gives up when that one lacks the page', () => {
    const known = contentOf('space-en', 'en', [{ id: 'a', title: 'A', slug: 'a', body: 'Kept body.' }]);
    const answer = (ids: string[]) =>
      proto.GetSpaceContentResponse.fromPartial({
        spaceId: 'space-en',
        revisionId: 'rev-2',
        pages: ids.map((id) => ({ id, title: id, slug: id, kind: 'document', bodyKept: true })),
      });
    assert.equal(publishedContentOf(answer(['a']), known)?.byId.get('a')?.body, 'Kept body.');
    assert.equal(publishedContentOf(answer(['a', 'b']), known), undefined, 'b is not in the held revision');
    assert.equal(publishedContentOf(answer(['a'])), undefined, 'nothing held');
  });

  it("keeps the page tree and the kept pages' rendered bodies of the content it follows while the outline is the same, and nothing once it differs", () => {
    const known = englishContent();
    const view = viewOf([english]);
    render(view, locationOf(english, 'guides/install'), known);
    render(view, locationOf(english, ''), known);
    assert.equal(known.navigation.size, 1);
    const renderedKeys = [...known.rendered.keys()];
    assert.equal(renderedKeys.length, 2);
    // The next revision edits the introduction's body; the other bodies are kept.
    const next = (pages: PageInput[]) =>
      publishedContentOf(
        proto.GetSpaceContentResponse.fromPartial({
          spaceId: 'space-en',
          revisionId: 'rev-2',
          title: 'space-en',
          language: 'en',
          pages: pages.map((page) => ({ kind: 'document', ...page, ...(page.id === 'intro' ? {} : { body: '', bodyKept: true }) })),
          files: [{ id: 'file1', name: 'diagram.png', contentType: 'image/png' }],
        }),
        known,
      );
    const edited = englishPages.map((page) => (page.id === 'intro' ? { ...page, body: 'Welcome, edited.' } : page));
    const same = next(edited);
    assert.ok(same);
    assert.deepEqual([...same.navigation], [...known.navigation]);
    assert.deepEqual(
      [...same.rendered.keys()],
      renderedKeys.filter((key) => key.startsWith('install\n')),
    );
    assert.match(render(view, locationOf(english, ''), same), /Welcome, edited\./);
    // A renamed page changes the page tree and the links to it: nothing is kept.
    const renamed = next(edited.map((page) => (page.id === 'install' ? { ...page, title: 'Installing' } : page)));
    assert.ok(renamed);
    assert.equal(renamed.navigation.size, 0);
    assert.equal(renamed.rendered.size, 0);
    assert.match(render(view, locationOf(english, 'guides/install'), renamed), /<h1[^>]*>Installing/);
  });
});

describe('renderPage', () => {
  it("shows the page in the site's frame: title, canonical address, its body with the site's addresses, navigation and neighbours", () => {
    const html = render(viewOf([english]), locationOf(english, 'guides/install'), englishContent());
    assert.match(html, /<title>Install \| Acme Docs<\/title>/);
    assert.match(html, /<html lang="en"[ >]/);
    assert.ok(html.includes('<link rel="canonical" href="https://docs.example.com/guides/install">'));
    assert.ok(html.includes('<meta name="description" content="How to install">'));
    assert.equal(html.includes('<script'), html.includes('id="_theme"'), 'a script only for the theme switch (or a banner to close)');
    assert.ok(!html.includes('name="robots"'), 'a public page is indexable');
    // Links and files of the body become the site's addresses.
    assert.ok(html.includes('href="/"'), 'a relative link to the first page leads to the root');
    assert.ok(html.includes('src="/~/files/space-en/file1"'));
    assert.match(html, /<h2 id="requirements"/);
    // The page tree marks the current page and leaves hidden pages out; previous and next follow the reading order.
    assert.ok(html.includes('<a href="/guides/install" aria-current="page">Install</a>'));
    assert.ok(!html.includes('Internal notes'));
    assert.ok(html.includes('<a rel="prev" href="/guides"><span>Previous</span> Guides</a>'));
    assert.ok(!html.includes('rel="next"'), 'the last page in reading order has no next one');
  });

  it("rewrites a page reference to the linked page's address, and names the markdown form only when agents may read the site", () => {
    const closed = render(viewOf([english]), locationOf(english, ''), englishContent());
    assert.ok(closed.includes('href="/guides/install"'), 'the /pages/<id> reference');
    assert.ok(!closed.includes('text/markdown'));
    const open = render(viewOf([english], siteOf({ agentsContext: 'included' })), locationOf(english, ''), englishContent());
    assert.ok(open.includes('<link rel="alternate" type="text/markdown" href="/intro.md">'));
    // The page's actions (GitBook's layout `actions`): its markdown, offered to readers too.
    assert.ok(open.includes('<p class="page-actions"><a href="/intro.md" type="text/markdown">View as Markdown</a></p><div class="body">'));
    assert.ok(!closed.includes('page-actions'));
    const actionless = englishPages.map((page) => (page.id === 'intro' ? { ...page, layout: { ...DEFAULT_PAGE_LAYOUT, actions: false } } : page));
    const quiet = render(viewOf([english], siteOf({ agentsContext: 'included' })), locationOf(english, ''), contentOf('space-en', 'en', actionless));
    assert.ok(!quiet.includes('page-actions') && quiet.includes('type="text/markdown" href="/intro.md"'), 'agents still find it');
  });

  it("says when the page was last changed, in the site's language, unless its layout hides its metadata", () => {
    const dated = englishPages.map((page) => (page.id === 'intro' ? { ...page, updateTime: new Date('2026-11-30T23:30:00Z') } : page));
    const html = render(viewOf([english]), locationOf(english, ''), contentOf('space-en', 'en', dated));
    assert.ok(html.includes('<p class="page-meta">Last updated <time datetime="2026-11-30T23:30:00.000Z">November 30, 2026</time></p><nav class="pager"'));
    const french = render(viewOf([english]), locationOf(english, ''), contentOf('space-en', 'fr', dated));
    assert.ok(french.includes('>30 novembre 2026</time>'), "in the space's language");
    const undated = render(viewOf([english]), locationOf(english, 'guides'), contentOf('space-en', 'en', dated));
    assert.ok(!undated.includes('page-meta'), 'a content service that does not say when shows nothing');
    const hidden = dated.map((page) => (page.id === 'intro' ? { ...page, layout: { ...DEFAULT_PAGE_LAYOUT, metadata: false } } : page));
    assert.ok(!render(viewOf([english]), locationOf(english, ''), contentOf('space-en', 'en', hidden)).includes('page-meta'));
  });

  it("shows the page's cover above its title when its layout shows it (a file of the space at this site's address, or an http(s) address), and its dark one in dark themes", () => {
    const covered = (cover: unknown, layout: Partial<typeof DEFAULT_PAGE_LAYOUT>) =>
      englishPages.map((page) => (page.id === 'intro' ? { ...page, cover, layout: { ...DEFAULT_PAGE_LAYOUT, ...layout } } : page));
    const page = (cover: unknown, layout: Partial<typeof DEFAULT_PAGE_LAYOUT>) =>
      render(viewOf([english]), locationOf(english, ''), contentOf('space-en', 'en', covered(cover, layout)));
    assert.ok(
      page({ fileId: 'file1' }, { cover: true }).includes(
        '<article><div class="page-cover cover-hero"><img class="cover" src="/~/files/space-en/file1" alt=""></div><h1>',
      ),
    );
    const remote = 'https://images.example.com/a.jpg';
    assert.ok(
      page({ url: remote }, { cover: true, coverSize: 'full' }).includes(`<div class="page-cover cover-full"><img class="cover" src="${remote}" alt=""></div>`),
    );
    // With one for dark themes: each theme shows its own (the logo's classes).
    assert.ok(
      page({ fileId: 'file1', darkUrl: remote }, { cover: true }).includes(
        `<div class="page-cover cover-hero"><img class="cover only-light" src="/~/files/space-en/file1" alt=""><img class="cover only-dark" src="${remote}" alt=""></div>`,
      ),
    );
    assert.ok(
      page({ fileId: 'file1', darkFileId: 'gone' }, { cover: true }).includes('<img class="cover" src="/~/files/space-en/file1" alt="">'),
      'its dark one gone',
    );
    assert.ok(!page({ fileId: 'file1' }, { cover: false }).includes('page-cover'), 'hidden by the layout');
    assert.ok(!page({ fileId: 'gone' }, { cover: true }).includes('page-cover'), 'a file the space no longer has');
    assert.ok(!page({ url: 'javascript:alert(1)' }, { cover: true }).includes('page-cover'), 'an address that is not http(s)');
  });

  it('offers the same page in the other variants (switcher and hreflang), the current one marked and the default as x-default', () => {
    const view = viewOf([english, french]);
    const html = render(view, locationOf(english, 'guides/install'), englishContent(), new Map([['ss-fr', frenchContent()]]));
    assert.ok(html.includes('<nav class="variants" aria-label="Variants">'));
    assert.ok(html.includes('<a href="/guides/install" aria-current="page">English</a>'));
    assert.ok(html.includes('<a href="/fr/guides/install">Français</a>'));
    assert.ok(html.includes('<link rel="alternate" hreflang="en" href="https://docs.example.com/guides/install">'));
    assert.ok(html.includes('<link rel="alternate" hreflang="fr" href="https://docs.example.com/fr/guides/install">'));
    assert.ok(html.includes('<link rel="alternate" hreflang="x-default" href="https://docs.example.com/guides/install">'));

    // A variant without that page links to its root, and is no alternate.
    const intro = render(view, locationOf(french, 'guides'), frenchContent(), new Map([['ss-en', contentOf('space-en', 'en', [englishPages[0]])]]));
    assert.ok(intro.includes('<a href="/">English</a>'));
    assert.ok(!intro.includes('hreflang'));
  });

  it('links a variant whose content is not given to its root, and keeps a hidden or noRobotsIndex page out of search engines', () => {
    const view = viewOf([english, french]);
    const alone = render(view, locationOf(english, 'guides/install'), englishContent());
    assert.ok(alone.includes('<a href="/fr/">Français</a>'));
    assert.ok(!alone.includes('hreflang'));
    const hidden = render(viewOf([english]), locationOf(english, 'internal'), englishContent());
    assert.ok(hidden.includes('<meta name="robots" content="noindex, nofollow">'));
    const robotsLess = contentOf('space-en', 'en', [{ id: 'p', title: 'Private notes', slug: 'notes', noRobotsIndex: true }]);
    assert.ok(render(viewOf([english]), locationOf(english, ''), robotsLess).includes('<meta name="robots" content="noindex, nofollow">'));
    const unlisted = render(viewOf([english], siteOf({ visibility: 'unlisted' })), locationOf(english, 'guides/install'), englishContent());
    assert.ok(unlisted.includes('<meta name="robots" content="noindex, nofollow">'), 'only public sites are indexed');
  });

  it("honours the page's layout: title, description, table of contents, outline, pagination, width and anchors, each on its own", () => {
    /** The install page (a description, an outline, a previous page) with `options` over the default layout. */
    const installWith = (options: Partial<PageLayout>, variants = [english], peers = new Map<string, PublishedContent>()) => {
      const pages = englishPages.map((page) => (page.id === 'install' ? { ...page, layout: { ...DEFAULT_PAGE_LAYOUT, ...options } } : page));
      return render(viewOf(variants), locationOf(english, 'guides/install'), contentOf('space-en', 'en', pages), peers);
    };
    const shown = installWith({});
    assert.ok(shown.includes('<div class="layout"><div class="sidebar"><nav class="pages" aria-label="Pages">'));
    assert.ok(shown.includes('<article><h1>Install</h1><p class="description">How to install</p>'));
    assert.ok(shown.includes('<aside class="outline"'));
    assert.ok(shown.includes('<a rel="prev" href="/guides">'));
    assert.equal(render(viewOf([english]), locationOf(english, 'guides/install'), englishContent()), shown, 'a page without a layout has the defaults');

    const untitled = installWith({ title: false });
    assert.ok(untitled.includes('<article><p class="description">How to install</p>') && !untitled.includes('<h1>'));
    assert.ok(untitled.includes('<title>Install | Acme Docs</title>'), 'the document keeps its title');
    const undescribed = installWith({ description: false });
    assert.ok(undescribed.includes('<article><h1>Install</h1><div class="body">'));
    assert.ok(undescribed.includes('<meta name="description" content="How to install">'), 'search engines still get it');
    // Without its table of contents the page takes the full width; a variant switcher stays.
    const full = installWith({ tableOfContents: false });
    assert.ok(full.includes('<div class="layout no-toc"><div class="sidebar"></div>\n<main id="_content">') && !full.includes('aria-label="Pages"'));
    const switching = installWith({ tableOfContents: false }, [english, french], new Map([['ss-fr', frenchContent()]]));
    assert.ok(switching.includes('<div class="layout no-toc"><div class="sidebar"><nav class="variants" aria-label="Variants">'));
    assert.ok(!switching.includes('aria-label="Pages"'));
    const outlineless = installWith({ outline: false });
    assert.ok(outlineless.includes('<div class="layout no-outline">') && !outlineless.includes('class="outline"'));
    assert.match(outlineless, /<h2 id="requirements"/, 'the headings keep their anchors');
    const unpaged = installWith({ pagination: false });
    assert.ok(!unpaged.includes('class="pager"') && !unpaged.includes('rel="prev"'));
    assert.ok(installWith({ width: 'wide' }).includes('<div class="layout wide">'));
    // Without anchors, the headings' links to themselves are not shown (the stylesheet hides them; the ids stay for links).
    assert.ok(shown.includes('<a class="anchor" href="#requirements"') && !shown.includes('no-anchors'));
    assert.ok(installWith({ anchors: false }).includes('<div class="layout no-anchors">'));
    const bare = installWith({ title: false, description: false, tableOfContents: false, outline: false, pagination: false, width: 'wide' });
    assert.ok(bare.includes('<div class="layout no-toc no-outline wide"><div class="sidebar"></div>\n<main id="_content"><article><div class="body">'));
    // The classes are the stylesheet's (no inline style: the CSP allows none).
    for (const rule of ['.layout.wide{', '.layout.no-toc{', '.layout.no-toc>.sidebar:empty{', '.no-outline main{', '.no-anchors .anchor{display:none}'])
      assert.ok(STYLESHEET.includes(rule), rule);
    assert.ok(!bare.includes('style='));
  });

  it('is a function of its input: the same view, location and content make the same page', () => {
    const view = viewOf([english, french]);
    const content = englishContent();
    const peers = new Map([['ss-fr', frenchContent()]]);
    const first = render(view, locationOf(english, 'guides/install'), content, peers);
    const again = render(view, locationOf(english, 'guides/install'), content, peers);
    const fresh = render(viewOf([english, french]), locationOf(english, 'guides/install'), englishContent(), new Map([['ss-fr', frenchContent()]]));
    assert.equal(again, first);
    assert.equal(fresh, first);
  });

  it("shares the site's social preview (Open Graph), and links its social accounts and privacy policy where they are shown", () => {
    const plain = render(viewOf([english]), locationOf(english, 'guides/install'), englishContent());
    assert.ok(plain.includes('<meta property="og:title" content="Install | Acme Docs">'));
    assert.ok(plain.includes('<meta property="og:url" content="https://docs.example.com/guides/install">'));
    assert.ok(plain.includes('<meta property="og:description" content="How to install">'));
    assert.ok(plain.includes('<meta name="twitter:card" content="summary">') && !plain.includes('og:image'));
    assert.ok(!plain.includes('social-links') && !plain.includes('Privacy policy'));
    const settings = {
      ...defaultCustomization(),
      socialPreview: { url: 'https://images.example.com/preview.png' },
      privacyPolicy: { url: 'https://example.com/privacy' },
      socialAccounts: [
        { platform: 'github' as const, handle: 'acme', display: { footer: true, header: false } },
        { platform: 'mastodon' as const, handle: 'acme@fosstodon.org', display: { footer: true, header: true } },
        { platform: 'youtube' as const, handle: '@acme', display: { footer: false, header: true } },
        { platform: 'discord' as const, handle: 'x"><script>', display: { footer: true, header: false } },
      ],
    };
    const site = siteOf({ customization: { json: siteCustomizationJson.write(settings), updatedAt: at } });
    const html = render(viewOf([english], site), locationOf(english, 'guides/install'), englishContent());
    assert.ok(
      html.includes('<meta property="og:image" content="https://images.example.com/preview.png"><meta name="twitter:card" content="summary_large_image">'),
    );
    assert.ok(
      html.includes(
        '<ul class="social-links" aria-label="Social accounts"><li><a href="https://github.com/acme">GitHub</a></li><li><a href="https://fosstodon.org/@acme">Mastodon</a></li><li><a href="https://discord.gg/x%22%3E%3Cscript%3E">Discord</a></li></ul>',
      ),
    );
    assert.ok(
      html.includes('<li><a href="https://fosstodon.org/@acme">Mastodon</a></li><li><a href="https://www.youtube.com/@acme">YouTube</a></li></ul></nav>'),
      'in the header too',
    );
    assert.ok(html.includes('<p class="privacy"><a href="https://example.com/privacy">Privacy policy</a></p>'));
  });

  it("dresses the frame in the site's customization, and a site space's overrides in its own", () => {
    const settings = {
      ...defaultCustomization(),
      title: 'Acme Handbook',
      styling: { ...defaultCustomization().styling, primaryColor: { light: '#ff0066', dark: '#66ffcc' }, corners: 'straight' as const, font: 'Lato' as const },
      favicon: { emoji: '📘' },
      header: {
        preset: 'default' as const,
        logo: { light: 'https://files.example.com/logo-light.png', dark: 'https://files.example.com/logo-dark.png' },
        links: [
          { title: 'Install', style: 'button-primary' as const, to: { kind: 'page' as const, page: 'install' }, links: [] },
          { title: 'Elsewhere', to: null, links: [{ title: 'Blog', to: { kind: 'url' as const, url: 'https://blog.example.com/' } }] },
          { title: 'Script', to: { kind: 'url' as const, url: 'javascript:alert(1)' }, links: [] },
          { title: 'Gone', to: { kind: 'page' as const, page: 'nowhere' }, links: [] },
        ],
      },
      footer: { groups: [{ title: 'More', links: [{ title: 'French', to: { kind: 'space' as const, space: 'space-fr' } }] }], copyright: '© Acme <1999>' },
      announcement: {
        enabled: true,
        message: 'Version 2 is out',
        style: 'warning' as const,
        link: { title: 'Read', to: { kind: 'page' as const, page: 'guides' } },
      },
      themes: { default: 'dark' as const, toggeable: true },
      pagination: { enabled: false },
      trademark: { enabled: true },
    };
    const site = siteOf({ customization: { json: siteCustomizationJson.write(settings), updatedAt: at } });
    const html = render(viewOf([english, french], site), locationOf(english, 'guides/install'), englishContent());
    assert.match(html, /<html lang="en" data-mode="dark" data-site="\/">/);
    assert.match(html, /<title>Install \| Acme Docs<\/title>/, "the document's title keeps the site's name");
    assert.match(html, /<link rel="stylesheet" href="\/~\/theme\/site\/[\w-]{16}\.css">/);
    assert.ok(html.includes(`<script>${SITE_SCRIPT}</script>`) && html.includes('<button id="_theme"'), 'the theme switch');
    assert.match(html, /<link rel="icon" href="data:image\/svg\+xml,[^"]*%F0%9F%93%98/);
    assert.ok(html.includes('<img class="logo only-light" src="https://files.example.com/logo-light.png" alt="Acme Handbook">'));
    assert.ok(html.includes('<img class="logo only-dark" src="https://files.example.com/logo-dark.png" alt="Acme Handbook">'));
    assert.ok(html.includes('<a class="button-primary" href="/guides/install">Install</a>'), 'a page link leads to its address');
    assert.ok(html.includes('<details class="menu"><summary>Elsewhere</summary><ul><li><a href="https://blog.example.com/">Blog</a></li></ul></details>'));
    assert.ok(html.includes('<span>Script</span>') && !html.includes('javascript:'), 'no script address is ever a link');
    assert.ok(html.includes('<span>Gone</span>'), 'a page that is not there is no link');
    assert.match(
      html,
      /<div id="_announcement" class="announcement announcement-warning" role="note" data-digest="[\w-]{16}"><p>Version 2 is out <a href="\/guides">Read<\/a><\/p><button id="_dismiss" class="dismiss" type="button" hidden aria-label="Close the announcement">×<\/button><\/div>/,
      'the banner, its close button shown by the script',
    );
    assert.ok(html.includes('<h2>More</h2><ul><li><a href="/fr/">French</a></li></ul>'), 'a space link leads to its variant');
    assert.ok(html.includes('<p>© Acme &lt;1999&gt;</p><p class="trademark">Published with Quire</p>'));
    assert.ok(!html.includes('rel="prev"'), 'pagination off');
    // A site space's overrides apply to its own pages only.
    const overridden = {
      ...english,
      customization: {
        json: siteSpaceOverridesJson.write({ styling: { primaryColor: { light: '#000000', dark: '#ffffff' } }, themes: { toggeable: false } }),
        updatedAt: at,
      },
    };
    const own = render(viewOf([overridden, french], site), locationOf(overridden, 'guides/install'), englishContent());
    assert.match(own, /<link rel="stylesheet" href="\/~\/theme\/ss-en\/[\w-]{16}\.css">/);
    assert.ok(!own.includes('id="_theme"'), 'no switch where the space turns it off');
    assert.ok(own.includes(`<script>${SITE_SCRIPT}</script>`), 'the script still closes the banner');
    assert.ok(own.includes('Version 2 is out'), "the rest is the site's");
    const css = themeCss(siteSpaceCustomizationOf(site, overridden), '/~/fonts/');
    assert.match(css, /:root\{--radius:0;--font-body:"Lato",system-ui,sans-serif;[^}]*--accent:#000000/);
    assert.match(css, /:root\[data-theme=dark\],:root\[data-mode=dark\]:not\(\[data-theme=light\]\)\{--accent:#ffffff/);
    assert.match(
      css,
      /@font-face\{font-family:"Lato";font-style:normal;font-weight:400;font-display:swap;src:url\(\/~\/fonts\/lato-latin-400-normal\.woff2\) format\("woff2"\)\}/,
    );
    assert.ok(fontFile('lato-latin-400-normal.woff2'), 'the font is served from its package');
    // externalLinks.target: the body's links to other sites open in a new tab, for the space that says so.
    const linking = contentOf('space-en', 'en', [{ id: 'out', title: 'Out', slug: 'out', body: 'See [the vendor](https://vendor.example.com/).' }]);
    const newTab = { ...english, customization: { json: siteSpaceOverridesJson.write({ externalLinks: { target: 'blank' } }), updatedAt: at } };
    assert.ok(
      render(viewOf([english], site), locationOf(english, ''), linking).includes('<a href="https://vendor.example.com/" rel="noopener">the vendor</a>'),
    );
    assert.ok(
      render(viewOf([newTab], site), locationOf(newTab, ''), linking).includes(
        '<a href="https://vendor.example.com/" rel="noopener" target="_blank">the vendor</a>',
      ),
    );
    assert.equal(fontFile('../../package.json'), undefined);
    assert.equal(fontFile('arial-latin-400-normal.woff2'), undefined);
  });
});
