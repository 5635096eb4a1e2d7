import { markdownParser } from '@quire/markdown';

/*
 * Markdown cut into what a translation provider may change and what it must not.
 *
 * A page body is parsed with markdown-it for its block structure (with the source lines of every
 * block). Only the text of paragraphs, headings and table cells is translated; everything else —
 * code blocks, HTML blocks, reference definitions, list markers, quote markers, indentation, the
 * front matter (except the values of its `title` and `description`) — is copied byte for byte.
 * Inside translated text the inline structure is found the same way (markdown-it's own inline
 * rules record where they matched): inline code, link and image targets (`](…)`, `][ref]`, and
 * whole shortcut references, whose label is the reference), autolinks, bare URLs, inline HTML
 * tags, expressions (`{{ … }}`, `{% … %}`), math (`$$ … $$`) and line breaks are replaced by
 * placeholders `⟦n⟧` the provider must give back, each exactly once.
 *
 * A segmented document is the list of its pieces: source text copied as it is, and segments.
 * Assembled with every segment left as it came ({@link assemble} with `identity`), it is the
 * source again (line endings normalized to `\n`).
 */

/** What the provider sees of one piece of text: the text with its protected spans as `⟦n⟧`. */
export interface Segment {
  /** Sent to the provider. */
  text: string;
  /** The source bytes of `⟦n⟧`, by n. */
  protectedSpans: string[];
  /** Whitespace around the text, kept out of the provider's hands. */
  lead: string;
  trail: string;
}

/** A text cut into pieces: source copied as it is, and segments to translate. */
export type Segmented = Array<string | Segment>;

/** A placeholder the provider did not give back exactly once (or one it made up). */
export class PlaceholderMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlaceholderMismatchError';
  }
}

const PLACEHOLDER = /⟦(\d+)⟧/g;
/** Text worth sending: at least one letter outside the placeholders. */
const LETTER = /\p{L}/u;

// Spans of the inline structure that stay as they are, found by markdown-it's own inline rules.
type InlineState = {
  src: string;
  pos: number;
  posMax: number;
  md: { helpers: { parseLinkLabel(state: InlineState, start: number, disableNested?: boolean): number } };
};
type InlineRule = (state: InlineState, silent: boolean) => boolean;
type Span = [start: number, end: number];

/** Where the rules record what they matched while protectedInlineSpans parses one text. */
let recording: { src: string; spans: Span[] } | null = null;

// Its own copy of the shared parser: the rules below are wrapped.
const md = markdownParser('linkify', { fresh: true });
const inlineRules = (md.inline.ruler as unknown as { __rules__: Array<{ name: string; fn: InlineRule }> }).__rules__;

function wrapRule(name: string, spansOf: (state: InlineState, start: number, end: number) => Span[]): void {
  const original = inlineRules.find((rule) => rule.name === name)?.fn;
  if (!original) throw new Error(`markdown-it has no inline rule ${name}`);
  const wrapped: InlineRule = (state, silent) => {
    const start = state.pos;
    const matched = original(state, silent);
    // Nested parses of another text (an image's alt text) are not positions of ours.
    if (matched && !silent && recording && state.src === recording.src) recording.spans.push(...spansOf(state, start, state.pos));
    return matched;
  };
  md.inline.ruler.at(name, wrapped as never);
}

const whole = (_state: InlineState, start: number, end: number): Span[] => [[start, end]];
for (const name of ['backticks', 'autolink', 'html_inline', 'linkify']) wrapRule(name, whole);

/** `[text](target)`: the brackets and the target are kept, the text between is translated; a reference label is kept whole. */
function linkSpans(opener: number) {
  return (state: InlineState, start: number, end: number): Span[] => {
    const saved = { pos: state.pos, posMax: state.posMax };
    state.posMax = end;
    const labelEnd = state.md.helpers.parseLinkLabel(state, start + opener - 1, opener === 1);
    Object.assign(state, saved);
    const next = state.src[labelEnd + 1];
    // An inline link or a full reference: its label is text. A shortcut or collapsed reference: its label is the reference.
    const labelIsText = labelEnd > 0 && end > labelEnd + 1 && (next === '(' || (next === '[' && state.src[labelEnd + 2] !== ']'));
    return labelIsText
      ? [
          [start, start + opener],
          [labelEnd, end],
        ]
      : [[start, end]];
  };
}
wrapRule('link', linkSpans(1));
wrapRule('image', linkSpans(2));

/** What markdown-it does not know: expressions and math (delimited), bare addresses it did not link, and our own placeholder brackets. */
const DELIMITED: Array<[open: string, close: string]> = [
  ['{{', '}}'],
  ['{%', '%}'],
  ['$$', '$$'],
];
const PROTECTED_PATTERNS = [/\bhttps?:\/\/[^\s<>()[\]{}"'`]+/g, /[⟦⟧]/g];

/** Every `open … close` span, shortest first, in one pass (an opener without a closer ends the search). */
function delimitedSpans(text: string, open: string, close: string): Span[] {
  const spans: Span[] = [];
  for (let start = text.indexOf(open); start >= 0; start = text.indexOf(open, start)) {
    const end = text.indexOf(close, start + open.length);
    if (end < 0) break;
    spans.push([start, end + close.length]);
    start = end + close.length;
  }
  return spans;
}

/** The protected spans of one inline text, merged and in order. */
export function protectedInlineSpans(text: string, env: Record<string, unknown> = {}): Span[] {
  const spans: Span[] = [];
  recording = { src: text, spans };
  try {
    md.parseInline(text, env);
  } finally {
    recording = null;
  }
  for (const [open, close] of DELIMITED) spans.push(...delimitedSpans(text, open, close));
  for (const pattern of PROTECTED_PATTERNS) for (const match of text.matchAll(pattern)) spans.push([match.index, match.index + match[0].length]);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) spans.push([i, i + 1]);
  return mergeSpans(spans);
}

function mergeSpans(spans: Span[]): Span[] {
  const sorted = spans.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const merged: Span[] = [];
  for (const [a, b] of sorted) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}

/**
 * One segment from the text between `from` and `to` of `source`, whose protected spans are given
 * in source positions; null when nothing in it is worth translating.
 */
function makeSegment(source: string, from: number, to: number, spans: Span[]): Segment | null {
  let text = '';
  const protectedSpans: string[] = [];
  let at = from;
  for (const [a, b] of spans) {
    text += source.slice(at, a) + `⟦${protectedSpans.length}⟧`;
    protectedSpans.push(source.slice(a, b));
    at = b;
  }
  text += source.slice(at, to);
  if (!LETTER.test(text.replace(PLACEHOLDER, ''))) return null;
  const lead = /^\s*/.exec(text)![0];
  const trail = /\s*$/.exec(text.slice(lead.length))![0];
  return { text: text.slice(lead.length, text.length - trail.length), protectedSpans, lead, trail };
}

/** A title or a description: one line of inline markdown. */
export function segmentInline(text: string): Segmented {
  const segment = makeSegment(text, 0, text.length, protectedInlineSpans(text));
  return segment ? [segment] : [text];
}

/** Front matter keys whose values are prose (the others — icon, cover, layout… — are settings). */
const PROSE_KEYS = /^(\s*(?:title|description)[ \t]*:[ \t]*)([^\s'"|>[{&*!%@`#].*?)[ \t]*$/;

/** A page body: see the top of this file. */
export function segmentMarkdown(markdown: string): Segmented {
  const body = markdown.replace(/\r\n?/g, '\n');
  const pieces: Segmented = [];
  let copied = 0;
  const emit = (from: number, to: number, segment: Segment | null) => {
    if (!segment) return;
    if (from > copied) pieces.push(body.slice(copied, from));
    pieces.push(segment);
    copied = to;
  };

  // The front matter: its prose values only.
  const frontMatter = /^---\n[\s\S]*?\n---(?:\n|$)/.exec(body);
  const start = frontMatter ? frontMatter[0].length : 0;
  if (frontMatter) {
    let lineStart = 0;
    for (const line of frontMatter[0].split('\n')) {
      const prose = PROSE_KEYS.exec(line);
      if (prose) {
        const from = lineStart + prose[1].length;
        const to = from + prose[2].length;
        emit(from, to, makeSegment(body, from, to, shift(protectedInlineSpans(prose[2]), from)));
      }
      lineStart += line.length + 1;
    }
  }

  const rest = body.slice(start);
  const lineStarts = [0];
  for (let i = rest.indexOf('\n'); i >= 0; i = rest.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineText = (n: number) => rest.slice(lineStarts[n], n + 1 < lineStarts.length ? lineStarts[n + 1] - 1 : rest.length);
  const env: Record<string, unknown> = {};
  const tokens = md.parse(rest, env);
  let inTable = false;
  for (const token of tokens) {
    if (token.type === 'table_open') {
      inTable = true;
      if (token.map)
        for (const [from, to, spans] of tableCells(token.map, lineStarts, lineText, env))
          emit(start + from, start + to, makeSegment(body, start + from, start + to, shift(spans, start)));
    } else if (token.type === 'table_close') inTable = false;
    else if (token.type === 'inline' && !inTable && token.map) {
      const located = locateInline(token.content, token.map, lineStarts, lineText);
      if (!located) continue; // Not found byte for byte (tabs expanded…): left as it is.
      const spans = protectedInlineSpans(token.content, env).map(([a, b]): Span => [located(a), located(b)]);
      emit(
        start + located(0),
        start + located(token.content.length),
        makeSegment(body, start + located(0), start + located(token.content.length), shift(spans, start)),
      );
    }
  }
  if (copied < body.length) pieces.push(body.slice(copied));
  return pieces;
}

const shift = (spans: Span[], by: number): Span[] => spans.map(([a, b]) => [a + by, b + by]);

/**
 * Where each line of an inline block's content is in the source: a function from content
 * positions to source positions (a line break maps to the end of its line, and the position
 * after it to where the next line's content starts), or null when a line is not found as it is.
 */
function locateInline(content: string, map: [number, number], lineStarts: number[], lineText: (n: number) => string): ((at: number) => number) | null {
  const lines = content.split('\n');
  const starts: Array<{ content: number; source: number }> = [];
  let contentAt = 0;
  let line = map[0];
  for (const text of lines) {
    let found = -1;
    for (; line < map[1] && found < 0; line++) {
      const source = lineText(line);
      // The content is the end of its line, but for trailing whitespace or a heading's closing #s.
      let index = source.lastIndexOf(text);
      while (index >= 0 && !/^[\s#]*$/.test(source.slice(index + text.length))) index = index > 0 ? source.lastIndexOf(text, index - 1) : -1;
      if (index >= 0 && text.length > 0) found = lineStarts[line] + index;
    }
    if (found < 0) return null;
    starts.push({ content: contentAt, source: found });
    contentAt += text.length + 1;
  }
  return (at) => {
    let i = starts.length - 1;
    while (i > 0 && starts[i].content > at) i--;
    return starts[i].source + (at - starts[i].content);
  };
}

/** The cells of a table's rows (not its delimiter row): their trimmed text and protected spans, in source positions. */
function tableCells(
  map: [number, number],
  lineStarts: number[],
  lineText: (n: number) => string,
  env: Record<string, unknown>,
): Array<[number, number, Span[]]> {
  const cells: Array<[number, number, Span[]]> = [];
  for (let line = map[0]; line < map[1]; line++) {
    if (line === map[0] + 1) continue; // |---|---|
    const text = lineText(line);
    let cellStart = 0;
    for (let i = 0; i <= text.length; i++) {
      const boundary = i === text.length || (text[i] === '|' && !isEscaped(text, i));
      if (!boundary) continue;
      const raw = text.slice(cellStart, i);
      const trimmedStart = cellStart + (raw.length - raw.trimStart().length);
      const trimmed = raw.trim();
      if (trimmed) {
        const from = lineStarts[line] + trimmedStart;
        cells.push([from, from + trimmed.length, shift(protectedInlineSpans(trimmed, env), from)]);
      }
      cellStart = i + 1;
    }
  }
  return cells;
}

function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** Every segment of the pieces, in order. */
export const segmentsOf = (pieces: Segmented): Segment[] => pieces.filter((piece): piece is Segment => typeof piece !== 'string');

/**
 * The segment's translation with its placeholders replaced by their source bytes; throws
 * PlaceholderMismatchError unless each placeholder came back exactly once and no other did.
 */
export function restoreSegment(segment: Segment, translated: string): string {
  const seen = new Array<number>(segment.protectedSpans.length).fill(0);
  let unknown = false;
  const restored = translated.trim().replace(PLACEHOLDER, (match, n: string) => {
    const index = Number(n);
    if (index >= segment.protectedSpans.length) {
      unknown = true;
      return match;
    }
    seen[index]++;
    return segment.protectedSpans[index];
  });
  if (unknown || seen.some((times) => times !== 1))
    throw new PlaceholderMismatchError(`expected each of ${segment.protectedSpans.length} placeholders exactly once, got ${JSON.stringify(seen)}`);
  return segment.lead + restored + segment.trail;
}

/** The pieces put back together, each segment replaced by `translate(segment)` (with its placeholders restored). */
export function assemble(pieces: Segmented, translate: (segment: Segment) => string): string {
  return pieces.map((piece) => (typeof piece === 'string' ? piece : restoreSegment(piece, translate(piece)))).join('');
}

/** Leaves every segment as it is: `assemble(pieces, identity)` is the source. */
export const identity = (segment: Segment): string => segment.text;

/** The words a segment asks to translate (its placeholders are not words). */
export function countWords(segment: Segment): number {
  return segment.text
    .replace(PLACEHOLDER, ' ')
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}
