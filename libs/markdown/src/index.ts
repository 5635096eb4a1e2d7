/*
 * The project's one markdown library: every service that reads or renders page bodies
 * goes through it, so links, search sections and published pages agree on the same parse
 * and the same heading anchors.
 */
export { markdownParser, type MarkdownParser, type MarkdownToken } from './parser';
export { AnchorAllocator } from './anchors';
export { escapeHtml, headingText, inlineText, plainText, renderMarkdown, type RenderOptions, type RenderedMarkdown, type RenderedHeading } from './render';
