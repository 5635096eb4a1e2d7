import { AnchorAllocator, headingText, inlineText, markdownParser, plainText } from '@quire/markdown';

/*
 * A page's markdown as searchable sections: cut at every heading (h1..h6), markup
 * stripped to plain text; terms and excerpts as the index sees them. Pure functions.
 */

// html: true so raw HTML is recognised as HTML (and dropped) instead of read as text.
const parser = markdownParser('html');

export interface MarkdownSection {
  /** Heading anchor, unique in the page; null for the text before the first heading. */
  anchor: string | null;
  /** Heading text ('' for the text before the first heading). */
  heading: string;
  /** Plain text of the section, without the heading. */
  text: string;
}

const HTML_TAG = /<[^>]*>/g;

/** The page's sections in order; empty sections without a heading are left out. */
export function markdownSections(markdown: string): MarkdownSection[] {
  const sections: MarkdownSection[] = [];
  // The same anchors a published page gives its headings.
  const anchors = new AnchorAllocator();
  let current: MarkdownSection = { anchor: null, heading: '', text: '' };
  const parts: string[] = [];
  const close = () => {
    current.text = plainText(parts.join(' '));
    parts.length = 0;
    if (current.anchor !== null || current.text !== '') sections.push(current);
  };
  const tokens = parser.parse(markdown, {});
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'heading_open') {
      close();
      const heading = headingText(tokens[i + 1]);
      const anchor = anchors.next(heading);
      current = { anchor, heading, text: '' };
      i += 2; // inline + heading_close
    } else if (token.type === 'inline') {
      parts.push(inlineText(token));
    } else if (token.type === 'fence' || token.type === 'code_block') {
      parts.push(token.content);
    } else if (token.type === 'html_block') {
      parts.push(token.content.replace(HTML_TAG, ' '));
    }
  }
  close();
  return sections;
}

// Words are what lies between white space and punctuation (the index's tokens).
const WORD = /[^\n\r\p{Z}\p{P}]+/gu;

export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

const ASCII = /^[\x00-\x7f]*$/;

/** How the index compares terms: accents folded, lower case. */
export function normalizeTerm(term: string): string {
  // Most terms are plain ASCII: nothing to fold but the case (indexing calls this per word).
  if (ASCII.test(term)) return term.toLowerCase();
  return term.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

const EXCERPT_LENGTH = 200;
const LEAD = 60;

/**
 * A short excerpt of `text` around the first word that is one of `terms` (normalized
 * index terms), cut at word boundaries, with "…" where text was cut. Without a match it
 * is the start of the text.
 */
export function excerptAround(text: string, terms: ReadonlySet<string>): string {
  if (text.length <= EXCERPT_LENGTH) return text;
  let at = 0;
  if (terms.size > 0) {
    for (const match of text.matchAll(WORD)) {
      if (terms.has(normalizeTerm(match[0]))) {
        at = match.index;
        break;
      }
    }
  }
  let start = Math.max(0, at - LEAD);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space >= 0 && space < at ? space + 1 : at;
  }
  let end = Math.min(text.length, start + EXCERPT_LENGTH);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start) end = space;
  }
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}
