/*
 * The instructions (a rich-text document) as the plain text a provider is given as guidance:
 * the text of its leaves, one line per block.
 */

type JsonNode = { object?: unknown; text?: unknown; leaves?: unknown; nodes?: unknown };

function textOf(node: JsonNode): string {
  if (node.object === 'text') {
    if (Array.isArray(node.leaves)) return node.leaves.map((leaf: JsonNode) => (typeof leaf?.text === 'string' ? leaf.text : '')).join('');
    return typeof node.text === 'string' ? node.text : '';
  }
  const children = Array.isArray(node.nodes) ? (node.nodes as JsonNode[]) : [];
  if (node.object === 'inline') return children.map(textOf).join('');
  // A block holding blocks: one line each; holding inline content: one line.
  const blocks = children.some((child) => child?.object === 'block');
  return children
    .map(textOf)
    .filter((text) => !blocks || text.trim() !== '')
    .join(blocks ? '\n' : '');
}

/** The instructions document as plain text; '' when it says nothing. */
export function instructionsText(document: { nodes: unknown[] }): string {
  return textOf({ nodes: document.nodes, object: 'block' }).trim();
}
