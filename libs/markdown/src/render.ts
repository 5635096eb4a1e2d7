import hljs from 'highlight.js/lib/common';
import { AnchorAllocator } from './anchors';
import { blockAddress, blockMeta, gitbookBlocks } from './blocks';
import { markdownParser, type MarkdownParser, type MarkdownToken } from './parser';

export interface RenderOptions {
  /** A link's destination as the reader should follow it (internal links rewritten); null drops the link, keeping its text. */
  resolveHref?: (href: string) => string | null;
  /** Links to other sites (http and https) open in a new tab. */
  externalInNewTab?: boolean;
  /** An image's address as the reader's browser should load it. */
  resolveSrc?: (src: string) => string;
  /** The name of the file at a file block's `src`, as its label (else the address's last part). */
  fileName?: (src: string) => string | undefined;
  /** The title of the page an internal link leads to, as a content reference's label (else the link's text). */
  pageTitle?: (href: string) => string | undefined;
}

export interface RenderedHeading {
  /** The level as rendered (body headings sit under the page title: a body's h1 renders as h2). */
  level: number;
  text: string;
  anchor: string;
}

export interface RenderedMarkdown {
  html: string;
  headings: RenderedHeading[];
}

// GitBook block tags ({% hint style="info" %} … {% endhint %}) are markup, not text.
const TEMPLATE_TAG = /\{%[^%]*%\}/g;

/** The readable text of an inline token: text, inline code, and images' alt text. */
export function inlineText(token: MarkdownToken): string {
  let out = '';
  for (const child of token.children ?? []) {
    if (child.type === 'text' || child.type === 'code_inline') out += child.content;
    else if (child.type === 'softbreak' || child.type === 'hardbreak') out += ' ';
    else if (child.type === 'image') out += inlineText(child);
  }
  return out;
}

/** Text as one line: GitBook's block tags dropped, white space runs as one space (only runs are replaced: fast on long text). */
export function plainText(text: string): string {
  const untagged = text.includes('{%') ? text.replace(TEMPLATE_TAG, ' ') : text;
  return untagged.replace(/\s{2,}|[^\S ]/g, ' ').trim();
}

/** A heading's text as anchors are made from it (plainText of its inline content). */
export function headingText(inline: MarkdownToken | undefined): string {
  return inline?.type === 'inline' ? plainText(inlineText(inline)) : '';
}

let renderer: MarkdownParser | undefined;

/** Text made safe to place in HTML, the way the renderer escapes it. */
export function escapeHtml(text: string): string {
  return markdownParser('source').utils.escapeHtml(text);
}

/**
 * A code block's HTML, coloured at render time (highlight.js: spans with `hljs-*` classes the
 * sites' stylesheet colours; no script in the page). '' leaves a block in a language it does
 * not know to markdown-it's escaping.
 */
function highlightCode(code: string, language: string): string {
  const name = language.trim().toLowerCase();
  if (!name || !hljs.getLanguage(name)) return '';
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}

function rendering(): MarkdownParser {
  if (renderer) return renderer;
  // Raw HTML stays text (a page's author cannot put script on a published site); bare addresses become links.
  const md = markdownParser('source', { fresh: true });
  md.set({ linkify: true, highlight: highlightCode });
  md.use(gitbookBlocks);
  const escape = md.utils.escapeHtml;
  md.renderer.rules.heading_open = (tokens, idx) => {
    const token = tokens[idx];
    const anchor = String(token.attrGet('id') ?? '');
    return `<${token.tag} id="${escape(anchor)}">`;
  };
  md.renderer.rules.heading_close = (tokens, idx) => {
    const open = tokens[idx];
    const anchor = open.meta?.anchor as string | undefined;
    const link = anchor ? ` <a class="anchor" href="#${escape(anchor)}" aria-label="Link to this section">#</a>` : '';
    return `${link}</${open.tag}>\n`;
  };
  const image = md.renderer.rules.image;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    tokens[idx].attrSet('loading', 'lazy');
    return image ? image(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
  };
  renderer = md;
  return md;
}

/** A block's address as a link of the page: never a script, a file through resolveSrc, any other through resolveHref. */
function resolveBlockAddress(md: MarkdownParser, address: { value: string; file: boolean }, options: RenderOptions): string | null {
  const normalized = md.normalizeLink(address.value);
  if (!md.validateLink(normalized)) return null;
  if (address.file) return options.resolveSrc ? options.resolveSrc(address.value) : normalized;
  return options.resolveHref ? options.resolveHref(address.value) : normalized;
}

/** A content reference's link reads as its page's title: GitBook writes the file's name there. */
function titleContentReferences(tokens: MarkdownToken[], pageTitle: (href: string) => string | undefined): void {
  for (let i = 0; i < tokens.length; i++) {
    const meta = tokens[i].type === 'gitbook_open' ? blockMeta(tokens[i]) : undefined;
    if (meta?.name !== 'content-ref' || !meta.paired) continue;
    let next = i + 1;
    while (next < tokens.length && tokens[next].type !== 'inline' && tokens[next].type !== 'gitbook_close') next++;
    const inline = tokens[next];
    const children = inline?.type === 'inline' ? (inline.children ?? []) : [];
    const open = children.findIndex((child) => child.type === 'link_open');
    const close = children.findIndex((child) => child.type === 'link_close');
    const label = children[open + 1];
    if (open < 0 || close <= open + 1 || label.type !== 'text') continue;
    const title = pageTitle(String(children[open].attrGet('href') ?? ''));
    if (!title) continue;
    label.content = title;
    children.splice(open + 2, close - open - 2);
  }
}

/**
 * A page body as HTML: headings get unique ids (the anchors search results point at) and are
 * listed for the outline, links and images go through the given resolvers, GitBook's blocks
 * (hints, tabs, code titles, embeds, files, content references, steppers, columns) become
 * HTML elements and other block tags are dropped, and raw HTML is shown as text.
 */
export function renderMarkdown(markdown: string, options: RenderOptions = {}): RenderedMarkdown {
  const md = rendering();
  const tokens = md.parse(markdown, {});
  const levels = tokens.filter((t) => t.type === 'heading_open').map((t) => Number(t.tag.slice(1)));
  // The page title is the h1: a body that uses h1 is shifted one level down.
  const offset = levels.length && Math.min(...levels) === 1 ? 1 : 0;
  const anchors = new AnchorAllocator();
  const headings: RenderedHeading[] = [];
  const walk = (list: MarkdownToken[]) => {
    for (const token of list) {
      if (token.type === 'link_open' && options.resolveHref) {
        const href = token.attrGet('href');
        if (href !== null) {
          const resolved = options.resolveHref(String(href));
          if (resolved === null) token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'href');
          else token.attrSet('href', resolved);
        }
        if (/^https?:\/\//i.test(String(token.attrGet('href') ?? ''))) {
          token.attrSet('rel', 'noopener');
          if (options.externalInNewTab) token.attrSet('target', '_blank');
        }
      } else if (token.type === 'gitbook_open') {
        const meta = blockMeta(token);
        const address = blockAddress(meta);
        if (address) meta.href = resolveBlockAddress(md, address, options);
        if (address?.file) meta.label = options.fileName?.(address.value);
      } else if (token.type === 'image' && options.resolveSrc) {
        const src = token.attrGet('src');
        if (src !== null) token.attrSet('src', options.resolveSrc(String(src)));
      }
      if (token.children) walk(token.children);
    }
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'heading_open') {
      const text = headingText(tokens[i + 1]);
      const anchor = anchors.next(text);
      const level = Math.min(6, Number(token.tag.slice(1)) + offset);
      token.tag = `h${level}`;
      tokens[i + 2].tag = token.tag;
      token.attrSet('id', anchor);
      tokens[i + 2].meta = { anchor };
      headings.push({ level, text, anchor });
    }
  }
  if (options.pageTitle) titleContentReferences(tokens, options.pageTitle);
  walk(tokens);
  return { html: md.renderer.render(tokens, md.options, {}), headings };
}
