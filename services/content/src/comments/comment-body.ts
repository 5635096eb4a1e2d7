/*
 * Comment bodies are stored as markdown. GitBook's Document type also has a JSON form,
 * `{document: {object: 'document', nodes: [...]}}`; such a body is accepted by turning its
 * text into markdown: one paragraph per top-level block, nested blocks one line each,
 * headings as `#` lines. Marks, links and embeds are not kept.
 */

/** Longest comment or reply body, in characters of markdown. */
export const MAX_COMMENT_MARKDOWN = 20_000;

// Deeper documents are cut here rather than risking the stack on hostile input.
const MAX_DEPTH = 64;

type JsonNode = { object?: unknown; type?: unknown; nodes?: unknown; leaves?: unknown; text?: unknown };

function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function childrenOf(node: JsonNode): JsonNode[] {
  return Array.isArray(node.nodes) ? node.nodes.filter(isNode) : [];
}

/** The text of a text node, an inline or a block without child blocks. */
function textOf(node: JsonNode, depth: number): string {
  if (depth > MAX_DEPTH) return '';
  if (node.object === 'text') {
    if (Array.isArray(node.leaves)) return node.leaves.map((leaf) => (isNode(leaf) && typeof leaf.text === 'string' ? leaf.text : '')).join('');
    return typeof node.text === 'string' ? node.text : '';
  }
  return childrenOf(node)
    .map((child) => textOf(child, depth + 1))
    .join('');
}

function blockToMarkdown(block: JsonNode, depth: number): string {
  if (depth > MAX_DEPTH) return '';
  const children = childrenOf(block);
  if (children.some((child) => child.object === 'block')) {
    return children
      .map((child) => (child.object === 'block' ? blockToMarkdown(child, depth + 1) : textOf(child, depth + 1)))
      .filter((line) => line.trim() !== '')
      .join('\n');
  }
  const text = textOf(block, depth);
  const heading = typeof block.type === 'string' ? /^heading-([1-6])$/.exec(block.type) : null;
  return heading && text.trim() !== '' ? `${'#'.repeat(Number(heading[1]))} ${text}` : text;
}

/** Markdown of a GitBook JSON document, or undefined when `value` is not one. */
export function documentToMarkdown(value: unknown): string | undefined {
  if (!isNode(value) || value.object !== 'document' || !Array.isArray(value.nodes)) return undefined;
  return childrenOf(value)
    .map((block) => blockToMarkdown(block, 1))
    .filter((paragraph) => paragraph.trim() !== '')
    .join('\n\n');
}

/**
 * A request's comment body in the markdown form: `{markdown}` is kept, the JSON form
 * `{document}` is converted; anything else is returned unchanged for validation to reject.
 */
export function commentBodyToMarkdownForm(body: unknown): unknown {
  if (!isNode(body) || 'markdown' in body || !('document' in body)) return body;
  const markdown = documentToMarkdown((body as { document: unknown }).document);
  return markdown === undefined ? body : { markdown };
}
