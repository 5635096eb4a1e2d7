import { pageLayout, type PageLayout } from '@quire/contract';
import { markdownParser } from '@quire/markdown';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { PageLayoutOption } from '../revisions';

/*
 * The markdown side of Git sync, as pure functions: page files (YAML front matter, the
 * leading `# title`, the body), link destinations (rewritten between repository paths
 * and the content service's `/pages/<id>` and `/files/<id>` references), and SUMMARY.md.
 */

/** A page file that cannot be read (invalid front matter); the message names the problem. */
export class PageFileError extends Error {}

export interface PageMeta {
  title?: string;
  description?: string;
  hidden?: boolean;
  /** GitBook's indexing flags (`noIndex: true`, `noRobotsIndex: true`). */
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  emoji?: string;
  variables?: Record<string, string>;
  /** The layout options the front matter sets (GitBook's `layout`); the others are the defaults. */
  layout?: Partial<PageLayout>;
  /** GitBook's `cover`: the cover image, a path relative to the page file or an http(s) address; `coverY` its vertical position. */
  cover?: string;
  coverY?: number;
}

export interface ParsedPageFile {
  meta: PageMeta;
  /** The leading level-1 heading, when the file starts with one. */
  heading: string | null;
  body: string;
}

const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?\n)?---[ \t]*(?:\n|$)/;
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

const isYamlMap = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/** Scalars of a YAML map as strings (variables are text). */
function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isYamlMap(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry === null || typeof entry === 'object') continue;
    out[key] = String(entry);
  }
  return out;
}

/** YAML text as a map; `where` names the file in the error. */
export function parseYamlMap(text: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new PageFileError(`${where}: invalid YAML (${(error as Error).message.split('\n')[0]})`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new PageFileError(`${where}: expected a YAML map`);
  return parsed as Record<string, unknown>;
}

/**
 * The parts of a page GitBook's `layout` front matter shows or hides, each as `<part>: {visible}`,
 * in the order GitBook writes them; the others are `width: default|wide` and
 * `cover: {visible, size}`. A value of another type or out of its range is ignored, like the
 * other front matter keys.
 */
const LAYOUT_PARTS = [
  'title',
  'description',
  'tableOfContents',
  'outline',
  'pagination',
  'metadata',
  'tags',
  'actions',
  'anchors',
] as const satisfies readonly PageLayoutOption[];

function layoutOf(value: unknown): Partial<PageLayout> | undefined {
  if (!isYamlMap(value)) return undefined;
  const layout: Partial<PageLayout> = {};
  const width = pageLayout.shape.width.safeParse(value.width);
  if (width.success) layout.width = width.data;
  if (isYamlMap(value.cover)) {
    if (typeof value.cover.visible === 'boolean') layout.cover = value.cover.visible;
    const size = pageLayout.shape.coverSize.safeParse(value.cover.size);
    if (size.success) layout.coverSize = size.data;
  }
  for (const part of LAYOUT_PARTS) {
    const entry = value[part];
    if (isYamlMap(entry) && typeof entry.visible === 'boolean') layout[part] = entry.visible;
  }
  return Object.keys(layout).length > 0 ? layout : undefined;
}

/** `layout` front matter in GitBook's shape for the options a page holds (those that differ from the defaults). */
function layoutFrontMatter(layout: Partial<PageLayout>): Record<string, unknown> {
  const front: Record<string, unknown> = {};
  if (layout.width !== undefined) front.width = layout.width;
  if (layout.cover !== undefined || layout.coverSize !== undefined) {
    front.cover = { ...(layout.cover !== undefined ? { visible: layout.cover } : {}), ...(layout.coverSize !== undefined ? { size: layout.coverSize } : {}) };
  }
  for (const part of LAYOUT_PARTS) if (layout[part] !== undefined) front[part] = { visible: layout[part] };
  return front;
}

function metaOf(data: Record<string, unknown>): PageMeta {
  const meta: PageMeta = {};
  if (typeof data.title === 'string' && data.title.trim()) meta.title = data.title.trim();
  if (typeof data.description === 'string') meta.description = data.description.trim();
  if (typeof data.hidden === 'boolean') meta.hidden = data.hidden;
  if (typeof data.noIndex === 'boolean') meta.noIndex = data.noIndex;
  if (typeof data.noRobotsIndex === 'boolean') meta.noRobotsIndex = data.noRobotsIndex;
  // `icon` holds an icon name or an emoji; pages here only have emoji.
  for (const key of ['emoji', 'icon'] as const) {
    const value = data[key];
    if (meta.emoji === undefined && typeof value === 'string' && EMOJI.test(value)) meta.emoji = value.trim();
  }
  const variables = stringMap(data.vars);
  if (variables && Object.keys(variables).length > 0) meta.variables = variables;
  const layout = layoutOf(data.layout);
  if (layout) meta.layout = layout;
  if (typeof data.cover === 'string' && data.cover.trim()) meta.cover = data.cover.trim();
  if (typeof data.coverY === 'number' && Number.isFinite(data.coverY)) meta.coverY = data.coverY;
  return meta;
}

const ATX_H1 = /^ {0,3}#(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_H1 = /^ {0,3}=+[ \t]*$/;

/** Splits a page file into front matter, leading heading and body (CRLF read as LF). */
export function parsePageFile(text: string, where: string): ParsedPageFile {
  let rest = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let meta: PageMeta = {};
  const front = FRONT_MATTER.exec(rest);
  if (front) {
    meta = metaOf(parseYamlMap(front[1] ?? '', `${where} front matter`));
    rest = rest.slice(front[0].length);
  }
  const lines = rest.split('\n');
  let first = 0;
  while (first < lines.length && lines[first].trim() === '') first += 1;
  let heading: string | null = null;
  let bodyStart = first;
  const atx = first < lines.length ? ATX_H1.exec(lines[first]) : null;
  if (atx) {
    heading = (atx[1] ?? '').trim();
    bodyStart = first + 1;
  } else if (first + 1 < lines.length && lines[first].trim() !== '' && SETEXT_H1.test(lines[first + 1]) && !/^ {4}/.test(lines[first])) {
    heading = lines[first].trim();
    bodyStart = first + 2;
  }
  const body = lines.slice(bodyStart).join('\n').replace(/^\n+/, '').trimEnd();
  return { meta, heading, body };
}

/** A page file: front matter for what is set, `# title`, the body. */
export function renderPageFile(
  page: {
    title: string;
    description: string;
    hidden: boolean;
    noIndex?: boolean;
    noRobotsIndex?: boolean;
    emoji: string;
    variables?: Record<string, string>;
    layout?: Partial<PageLayout>;
  },
  body: string,
  /** The cover image as the file says it (`cover`: a path relative to the file, or an address) and its position (`coverY`). */
  cover?: { src: string; y: number },
): string {
  const front: Record<string, unknown> = {};
  if (page.description) front.description = page.description;
  if (page.emoji) front.icon = page.emoji;
  if (page.hidden) front.hidden = true;
  if (page.noIndex) front.noIndex = true;
  if (page.noRobotsIndex) front.noRobotsIndex = true;
  if (page.variables && Object.keys(page.variables).length > 0) front.vars = page.variables;
  // A page with a cover says whether it shows: a file without `layout.cover` would show it when read back.
  const layout = (page.layout || cover) && layoutFrontMatter({ ...(cover ? { cover: false } : {}), ...page.layout });
  if (cover) {
    front.cover = cover.src;
    front.coverY = cover.y;
  }
  if (layout && Object.keys(layout).length > 0) front.layout = layout;
  const header = Object.keys(front).length > 0 ? `---\n${stringifyYaml(front, { lineWidth: 0 })}---\n\n` : '';
  const trimmed = body.trimEnd();
  return `${header}# ${page.title}\n${trimmed ? `\n${trimmed}\n` : ''}`;
}

/* ---------------------------------------------------------------- links -- */

/** A destination's path and what follows it (`?query#anchor`). */
export function splitHref(href: string): { path: string; suffix: string } {
  const index = href.search(/[?#]/);
  return index < 0 ? { path: href, suffix: '' } : { path: href.slice(0, index), suffix: href.slice(index) };
}

/** True for absolute addresses (scheme or `//host`) and in-page anchors. */
export function isExternalHref(href: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//') || href.startsWith('#') || href.trim() === '';
}

export function safeDecode(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}

type Rewrite = (href: string) => string | null;

const INLINE_DESTINATION = /(\]\(\s*)(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)/g;
const REFERENCE_DEFINITION = /^( {0,3}\[[^\]]+\]:[ \t]*)(<[^>\n]*>|\S+)/;
const HTML_ATTRIBUTE = /(<(?:img|a|source|video|audio|embed|iframe)\b[^>]*?\s(?:src|href)\s*=\s*)(["'])([^"'\n]*)\2/gi;
// GitBook blocks: {% file src="…" %}, {% content-ref url="…" %}, {% embed url="…" %}.
const BLOCK_ATTRIBUTE = /(\{%[ \t]*[\w-]+[^%\n]*?\s(?:src|url)=)(["'])([^"'\n]*)\2/g;

function markdownDestination(original: string, rewritten: string): string {
  const wrapped = original.startsWith('<');
  return wrapped || /[\s()<>]/.test(rewritten) ? `<${rewritten}>` : rewritten;
}

function rewriteText(text: string, rewrite: Rewrite, lineStart: boolean): string {
  let out = text.replace(INLINE_DESTINATION, (match, lead: string, destination: string) => {
    const raw = destination.startsWith('<') ? destination.slice(1, -1) : destination;
    const next = raw === '' ? null : rewrite(raw);
    return next === null ? match : `${lead}${markdownDestination(destination, next)}`;
  });
  if (lineStart) {
    out = out.replace(REFERENCE_DEFINITION, (match, lead: string, destination: string) => {
      const raw = destination.startsWith('<') ? destination.slice(1, -1) : destination;
      const next = rewrite(raw);
      return next === null ? match : `${lead}${markdownDestination(destination, next)}`;
    });
  }
  const attribute = (match: string, lead: string, quote: string, value: string) => {
    const next = value === '' ? null : rewrite(value);
    return next === null ? match : `${lead}${quote}${next}${quote}`;
  };
  return out.replace(HTML_ATTRIBUTE, attribute).replace(BLOCK_ATTRIBUTE, attribute);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Rewrites the destinations of links, images, reference definitions, HTML src/href and
 * GitBook block src/url attributes; `rewrite` returns the new destination or null to keep
 * it. Fenced code blocks and inline code spans are left alone.
 */
export function rewriteLinks(markdown: string, rewrite: Rewrite): string {
  if (!/\]\(|\]:|src=|href=|url=/.test(markdown)) return markdown;
  const lines = markdown.split('\n');
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    // Outside inline code spans only: split on backtick runs and rewrite the even parts.
    const parts = line.split(/(`+[^`]*?`+)/);
    lines[i] = parts.map((part, index) => (index % 2 === 1 && part.startsWith('`') ? part : rewriteText(part, rewrite, index === 0))).join('');
  }
  return lines.join('\n');
}

/* -------------------------------------------------------------- summary -- */

export interface SummaryEntry {
  title: string;
  /** The link destination as written (null: an entry without a page file, or a group). */
  href: string | null;
  children: SummaryEntry[];
}

const summaryParser = markdownParser('source');
type Token = ReturnType<typeof summaryParser.parse>[number];

function inlineText(token: Token): string {
  return (token.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('')
    .trim();
}

/**
 * The table of contents: nested list items `[Title](path.md)`; a `## Heading` starts a
 * group whose items follow it (a group becomes a page holding them). The leading
 * `# Table of contents` is not an entry.
 */
export function parseSummary(markdown: string): SummaryEntry[] {
  const root: SummaryEntry[] = [];
  let base = root;
  const lists: SummaryEntry[][] = [];
  const items: SummaryEntry[] = [];
  const parsed = new Set<SummaryEntry>();
  const tokens = summaryParser.parse(markdown, {});
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    switch (token.type) {
      case 'heading_open': {
        if (items.length > 0 || token.tag === 'h1') break;
        const group: SummaryEntry = { title: inlineText(tokens[i + 1]), href: null, children: [] };
        root.push(group);
        base = group.children;
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists.push(items.length > 0 ? items[items.length - 1].children : base);
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        break;
      case 'list_item_open': {
        const entry: SummaryEntry = { title: '', href: null, children: [] };
        (lists[lists.length - 1] ?? base).push(entry);
        items.push(entry);
        break;
      }
      case 'list_item_close':
        items.pop();
        break;
      case 'inline': {
        const entry = items[items.length - 1];
        if (!entry || parsed.has(entry)) break;
        parsed.add(entry);
        const link = (token.children ?? []).find((child) => child.type === 'link_open');
        entry.href = link ? String(link.attrGet('href') ?? '') || null : null;
        entry.title = inlineText(token);
        break;
      }
      default:
        break;
    }
  }
  return root;
}

const escapeTitle = (title: string) => title.replace(/([\\[\]])/g, '\\$1');

/** SUMMARY.md for entries whose href is a repository-relative path. */
export function renderSummary(entries: ReadonlyArray<{ title: string; href: string; depth: number }>): string {
  const lines = entries.map((entry) => `${'  '.repeat(entry.depth)}* [${escapeTitle(entry.title)}](${entry.href.replace(/ /g, '%20')})`);
  return `# Table of contents\n\n${lines.join('\n')}\n`;
}
