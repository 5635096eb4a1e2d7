import type { z } from 'zod';
import type { contentRef } from '@quire/contract';
import type { SiteSectionGroupDoc, SiteSpaceDoc } from '../db/models';
import { customizationOf, siteSpaceCustomizationOf, type CustomizationSettings } from '../domain/customization';
import { byPosition } from '../domain/positions';
import {
  navHtml,
  PLAIN_LOOK,
  type Alternate,
  type Frame,
  type HeaderItem,
  type Link,
  type Look,
  type NavNode,
  type PageContent,
  type Tab,
  type Themed,
} from './html';
import { settingsDigest, socialLink } from './look';
import { renderedBody, type CoverImage, type PublishedContent, type PublishedFile, type PublishedPage } from './space-content';
import { sectionPath, shownVariants, variantPath, type Location, type SiteView } from './site-view';

/*
 * What a published page shows besides its body — tabs, variants, navigation, previous/next —
 * and the addresses of everything in it: links between pages (content's /pages/<id>
 * references and page paths) and files become addresses of this site.
 */

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const PAGE_REF = /^\/pages\/([^/?#]+)\/?$/;
const FILE_REF = /^\/files\/([^/?#]+)\/?$/;
/** An address with a scheme, protocol-relative or an anchor of the same page: not one of the space's. */
const leavesTheSpace = (href: string) => SCHEME.test(href) || href.startsWith('#') || href.startsWith('//');

/** Addresses of one variant's pages and files as this site shows them. */
export class VariantAddresses {
  readonly root: string;

  constructor(
    readonly view: SiteView,
    readonly location: Location,
    readonly content: PublishedContent,
  ) {
    this.root = variantPath(view, location.section, location.siteSpace);
  }

  /** The variant's first page is its root. */
  page(page: PublishedPage): string {
    return page.id === this.content.reading[0]?.id ? this.root : `${this.root}${encodePath(page.path)}`;
  }

  markdown(page: PublishedPage): string {
    return `${this.root}${encodePath(page.path)}.md`;
  }

  file(fileId: string): string {
    return `${this.view.address.basePath}~/files/${encodeURIComponent(this.content.spaceId)}/${encodeURIComponent(fileId)}`;
  }

  /** The variant's page at `pagePath` (its first page for ''). */
  pageAt(pagePath: string): PublishedPage | undefined {
    return pagePath ? this.content.byPath.get(pagePath) : (this.content.reading[0] ?? this.content.pages[0]);
  }

  /** A link of `from`'s body: internal ones become this site's addresses; a missing internal target loses its link. */
  href(from: PublishedPage, href: string): string | null {
    if (leavesTheSpace(href)) return href;
    const [target, anchor] = splitAnchor(href);
    const fileRef = FILE_REF.exec(target);
    if (fileRef) return this.content.files.has(fileRef[1]) ? this.file(fileRef[1]) : null;
    const isPageRef = PAGE_REF.test(target);
    const file = isPageRef ? undefined : this.fileByName(target);
    if (file) return this.file(file.id);
    const page = this.linkedPage(from, target);
    if (page) return `${this.page(page)}${anchor}`;
    return target.startsWith('/') && !isPageRef ? href : null;
  }

  /** The title of the page of this space a link of `from`'s body leads to (a content reference's label). */
  pageTitle(from: PublishedPage, href: string): string | undefined {
    return leavesTheSpace(href) ? undefined : this.linkedPage(from, splitAnchor(href)[0])?.title;
  }

  /** An image's address: content's /files/<id>, or a file of the revision by its name (.gitbook/assets/…). */
  src(src: string): string {
    const file = this.fileAt(src);
    return file ? this.file(file.id) : src;
  }

  /** The name of the space's file at `src` (a file block's label). */
  fileName(src: string): string | undefined {
    return this.fileAt(src)?.name;
  }

  /** The space's file a body names: `/files/<id>`, or by its name (`.gitbook/assets/<name>`). */
  private fileAt(src: string): PublishedFile | undefined {
    const fileRef = FILE_REF.exec(src);
    if (fileRef) return this.content.files.get(fileRef[1]) ?? this.fileByName(src);
    return this.fileByName(src);
  }

  private fileByName(target: string): PublishedFile | undefined {
    if (SCHEME.test(target)) return undefined;
    let name: string;
    try {
      name = decodeURIComponent(target.split('/').pop() ?? '');
    } catch {
      return undefined;
    }
    return name && (target.includes('.gitbook/assets/') || !/\.md$/i.test(name)) ? this.content.filesByName.get(name) : undefined;
  }

  /** The page a link names: content's /pages/<id>, or a path (pageByRelativePath). */
  private linkedPage(from: PublishedPage, target: string): PublishedPage | undefined {
    const pageRef = PAGE_REF.exec(target);
    return pageRef ? this.content.byId.get(pageRef[1]) : this.pageByRelativePath(from, target);
  }

  /** "guides/install.md", "../intro", "README.md" next to `from` (Git layout), or a page path from the space's root. */
  private pageByRelativePath(from: PublishedPage, target: string): PublishedPage | undefined {
    if (!target) return undefined;
    let decoded: string;
    try {
      decoded = decodeURI(target);
    } catch {
      return undefined;
    }
    const clean = (path: string) =>
      path
        .replace(/\.md$/i, '')
        .replace(/(^|\/)README$/i, '')
        .replace(/\/$/, '');
    if (decoded.startsWith('/')) return this.content.byPath.get(clean(decoded.slice(1)));
    const dir = from.childIds.length ? from.path.split('/') : from.path.split('/').slice(0, -1);
    for (const part of decoded.split('/')) {
      if (part === '..') dir.pop();
      else if (part !== '.' && part !== '') dir.push(part);
    }
    return this.content.byPath.get(clean(dir.join('/')));
  }
}

function splitAnchor(href: string): [string, string] {
  const at = href.indexOf('#');
  return at < 0 ? [href, ''] : [href.slice(0, at), href.slice(at)];
}

/** Sections as tabs, in groups (nested groups inside theirs), the current one marked. */
export function tabsOf(view: SiteView, location?: Location): Tab[] {
  if (!view.sectioned) return [];
  const groupIds = new Set(view.groups.map((g) => g._id));
  const parentOf = (id: string | null | undefined) => (id && groupIds.has(id) ? id : null);
  const under = (groupId: string | null): Tab[] => {
    const items: Array<{ position: number; tab: Tab }> = [];
    for (const section of view.sections.filter((s) => parentOf(s.sectionGroupId) === groupId)) {
      items.push({
        position: section.position,
        tab: { label: section.title, href: sectionPath(view, section), current: section._id === location?.section?._id },
      });
    }
    for (const group of view.groups.filter((g: SiteSectionGroupDoc) => parentOf(g.parentId) === groupId && g._id !== groupId)) {
      items.push({ position: group.position, tab: { label: group.title, tabs: under(group._id) } });
    }
    return items.sort((a, b) => a.position - b.position).map((item) => item.tab);
  };
  return under(null);
}

/**
 * The variants of the location's section (or of the site root), the current one marked: each
 * links to the page at the same path in it when `peers` has one, else to its root.
 */
export function variantsOf(view: SiteView, location: Location, peers: SamePage[] = []): Link[] {
  const variants = [...(view.variants.get(location.section?._id ?? '') ?? [])].sort(byPosition);
  return variants.map((siteSpace: SiteSpaceDoc) => ({
    label: view.spaces.get(siteSpace.spaceId)?.title ?? siteSpace.path,
    href: peers.find((peer) => peer.siteSpace._id === siteSpace._id)?.href ?? variantPath(view, location.section, siteSpace),
    current: siteSpace._id === location.siteSpace._id,
  }));
}

/** A page as one variant of a section shows it: the same path (or the first page) in each variant that has it. */
export interface SamePage {
  siteSpace: SiteSpaceDoc;
  language: string;
  /** Its address on the site (a path). */
  href: string;
}

/** The page at the location's path in each variant that has it (the first page for a variant's root). */
export function samePages(location: Location, variants: VariantAddresses[]): SamePage[] {
  return variants.flatMap((addresses) => {
    const same = addresses.pageAt(location.pagePath);
    return same ? [{ siteSpace: addresses.location.siteSpace, language: addresses.content.language, href: addresses.page(same) }] : [];
  });
}

/**
 * hreflang alternates (absolute addresses) when the variants that have the page are in more
 * than one language: one per language (the current variant's, else the default's, else the
 * first), and x-default for the default variant's.
 */
export function languageAlternates(view: SiteView, location: Location, peers: SamePage[], origin: string): Alternate[] {
  const languages = new Set(peers.map((peer) => peer.language).filter(Boolean));
  if (languages.size < 2) return [];
  const preferred = [...peers].sort((a, b) => rank(view, location, a) - rank(view, location, b) || byPosition(a.siteSpace, b.siteSpace));
  const alternates: Alternate[] = [];
  for (const peer of preferred)
    if (peer.language && !alternates.some((a) => a.hreflang === peer.language)) alternates.push({ hreflang: peer.language, href: `${origin}${peer.href}` });
  const fallback = peers.find((peer) => view.defaults.has(peer.siteSpace._id));
  if (fallback) alternates.push({ hreflang: 'x-default', href: `${origin}${fallback.href}` });
  return alternates;
}

const rank = (view: SiteView, location: Location, peer: SamePage) =>
  peer.siteSpace._id === location.siteSpace._id ? 0 : view.defaults.has(peer.siteSpace._id) ? 1 : 2;

export function frameOf(
  view: SiteView,
  input: {
    title: string;
    lang?: string;
    description?: string;
    canonical?: string;
    noIndex?: boolean;
    location?: Location;
    /** The page in each variant, for the variant switcher. */
    peers?: SamePage[];
    alternates?: Alternate[];
    query?: string;
    markdown?: string;
    /** The addresses of the location's variant, for the customization's links to its pages. */
    addresses?: VariantAddresses;
  },
): Frame {
  const lang = input.lang || 'en';
  const settings = input.location ? siteSpaceCustomizationOf(view.site, input.location.siteSpace) : customizationOf(view.site);
  return {
    lang,
    siteTitle: (settings.localizedTitle?.[lang as keyof typeof settings.localizedTitle] ?? settings.title) || view.site.title,
    basePath: view.address.basePath,
    title: input.title,
    description: input.description,
    canonical: input.canonical,
    noIndex: view.site.visibility !== 'public' || Boolean(input.noIndex),
    tabs: tabsOf(view, input.location),
    variants: input.location ? variantsOf(view, input.location, input.peers) : [],
    alternates: input.alternates ?? [],
    query: input.query,
    markdown: input.markdown,
    look: lookOf(view, settings, lang, input.location, input.addresses),
  };
}

/** A frame that shows nothing of a site but its title (a 404 where no site is, a sign-in page). */
export function bareFrame(basePath: string, siteTitle: string, title: string): Frame {
  return { lang: 'en', siteTitle, basePath, title, noIndex: true, tabs: [], variants: [], look: PLAIN_LOOK };
}

type ContentRef = z.infer<typeof contentRef>;

/** An address the reader's browser may follow from a link of the customization: http(s), mail, or a path of this host. */
function safeHref(url: string): string | undefined {
  if (/^(https?:|mailto:)/i.test(url)) return url;
  return url.startsWith('/') && !url.startsWith('//') ? url : undefined;
}

/**
 * Where a customization's link leads on this site: an address, a page (of the location's
 * variant: its address; of another space of the site: that space's first page), a space (its
 * first page), a file. undefined: nowhere the visitor may go (the link shows as text).
 */
function refHref(view: SiteView, ref: ContentRef | null | undefined, addresses?: VariantAddresses): string | undefined {
  if (!ref) return undefined;
  const spaceRoot = (spaceId: string | undefined) => {
    const shown = shownVariants(view).find(({ siteSpace }) => siteSpace.spaceId === spaceId);
    return shown ? variantPath(view, shown.section, shown.siteSpace) : undefined;
  };
  const inVariant = (spaceId: string | undefined) => (addresses && (!spaceId || spaceId === addresses.content.spaceId) ? addresses : undefined);
  switch (ref.kind) {
    case 'url':
      return safeHref(ref.url);
    case 'space':
      return spaceRoot(ref.space);
    case 'file': {
      const own = inVariant(ref.space);
      return own?.content.files.has(ref.file) ? own.file(ref.file) : undefined;
    }
    case 'page':
    case 'anchor': {
      const own = inVariant(ref.space);
      const pageId = ref.page;
      const anchor = ref.kind === 'anchor' ? `#${encodeURIComponent(ref.anchor)}` : '';
      if (!pageId) return anchor || undefined;
      if (!own) return spaceRoot(ref.space);
      const page = own.content.byId.get(pageId);
      return page && !page.hidden ? `${own.page(page)}${anchor}` : undefined;
    }
  }
}

/** How the customization dresses the frame of a page at `location` (or the site's other pages). */
function lookOf(view: SiteView, settings: CustomizationSettings, lang: string, location?: Location, addresses?: VariantAddresses): Look {
  const label = (item: { title: string; localizedTitle?: Partial<Record<string, string>> }) => item.localizedTitle?.[lang] ?? item.title;
  const links = (list: Array<{ title: string; localizedTitle?: Partial<Record<string, string>>; to: ContentRef }>): Link[] =>
    list.flatMap((link) => {
      const href = refHref(view, link.to, addresses);
      return href ? [{ label: label(link), href }] : [];
    });
  const headerLinks: HeaderItem[] = settings.header.links.map((item) => ({
    label: label(item),
    href: refHref(view, item.to, addresses),
    style: item.style ?? 'link',
    links: links(item.links),
  }));
  // The social accounts shown in the header follow its links; those of the footer go under its groups.
  for (const account of settings.socialAccounts) if (account.display.header) headerLinks.push({ ...socialLink(account), style: 'link', links: [] });
  const { announcement, favicon } = settings;
  const announcementLink = announcement?.link && links([announcement.link])[0];
  return {
    mode: settings.themes.default,
    toggle: settings.themes.toggeable,
    stylesheet: `${view.address.basePath}~/theme/${location?.siteSpace.customization ? encodeURIComponent(location.siteSpace._id) : 'site'}/${settingsDigest(settings)}.css`,
    logo: settings.header.logo,
    favicon: 'icon' in favicon ? favicon.icon : 'emoji' in favicon ? { emoji: favicon.emoji } : undefined,
    headerLinks,
    footerGroups: settings.footer.groups.map((group) => ({ title: label(group), links: links(group.links) })),
    footerLogo: settings.footer.logo,
    copyright: settings.footer.copyright,
    announcement: announcement?.enabled
      ? {
          message: announcement.localizedMessage?.[lang as keyof typeof announcement.localizedMessage] ?? announcement.message,
          style: announcement.style,
          ...(announcementLink ? { link: announcementLink } : {}),
        }
      : undefined,
    pagination: settings.pagination.enabled,
    trademark: settings.trademark.enabled,
    socialLinks: settings.socialAccounts.filter((account) => account.display.footer).map(socialLink),
    privacyPolicy: settings.privacyPolicy.url,
    socialPreview: settings.socialPreview.url,
    feedback: settings.feedback.enabled,
  };
}

/** The variant's page tree (hidden pages left out), rendered once per revision and site address. */
function navigationOf(addresses: VariantAddresses): string {
  const { content } = addresses;
  let html = content.navigation.get(addresses.root);
  if (html === undefined) {
    const node = (page: PublishedPage): NavNode => ({
      label: page.title,
      href: addresses.page(page),
      emoji: page.emoji || undefined,
      children: page.childIds
        .map((id) => content.byId.get(id) as PublishedPage)
        .filter((child) => !child.hidden)
        .map(node),
    });
    html = navHtml(content.pages.filter((page) => page.parentId === null && !page.hidden).map(node));
    content.navigation.set(addresses.root, html);
  }
  return html;
}

/** The address of a cover image: its file on this site (none when the space lacks it) or its http(s) address. */
function imageSrc(addresses: VariantAddresses, image: CoverImage): string | undefined {
  if ('fileId' in image) return addresses.content.files.has(image.fileId) ? addresses.file(image.fileId) : undefined;
  return /^https?:\/\//i.test(image.url) ? image.url : undefined;
}

/** The addresses of the page's cover images, for each theme (the same for both without a dark one); none without a light one. */
function coverSrc(addresses: VariantAddresses, page: PublishedPage): Themed | undefined {
  const light = page.cover && imageSrc(addresses, page.cover.light);
  if (!light) return undefined;
  const dark = page.cover?.dark && imageSrc(addresses, page.cover.dark);
  return { light, dark: dark ?? light };
}

/** The page's content for pageHtml: its body with this site's addresses, its outline, navigation, neighbours and layout. */
export function pageContentOf(addresses: VariantAddresses, page: PublishedPage, options: { externalInNewTab?: boolean } = {}): PageContent {
  const rendered = renderedBody(
    addresses.content,
    page,
    addresses.root,
    {
      href: (href) => addresses.href(page, href),
      src: (src) => addresses.src(src),
      fileName: (src) => addresses.fileName(src),
      pageTitle: (href) => addresses.pageTitle(page, href),
    },
    options,
  );
  const reading = addresses.content.reading;
  const at = reading.findIndex((p) => p.id === page.id);
  const neighbour = (p: PublishedPage | undefined): Link | undefined => (p ? { label: p.title, href: addresses.page(p) } : undefined);
  return {
    title: page.title,
    emoji: page.emoji || undefined,
    description: page.description || undefined,
    bodyHtml: page.computed && !page.body ? '<p>This page is generated and has no content to show here yet.</p>' : rendered.html,
    outline: rendered.headings,
    navHtml: navigationOf(addresses),
    href: addresses.page(page),
    layout: page.layout,
    updatedAt: page.updatedAt,
    cover: coverSrc(addresses, page),
    previous: at > 0 ? neighbour(reading[at - 1]) : undefined,
    next: at >= 0 ? neighbour(reading[at + 1]) : undefined,
  };
}
