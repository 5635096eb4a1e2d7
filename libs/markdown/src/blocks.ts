import type { MarkdownParser, MarkdownToken } from './parser';

/*
 * GitBook's block tags, as GitBook writes them to Git and Quire keeps them in page bodies:
 * a tag alone on its line, `{% hint style="info" %}` … `{% endhint %}`, with markdown between.
 * A markdown-it block rule reads each tag line as a `gitbook_open` or `gitbook_close` token;
 * a core rule pairs them (same name, same container) and the renderer turns pairs into
 * HTML elements. A tag that is not paired, or a block Quire does not show, is dropped and
 * the markdown between stays.
 */

const TAG_LINE = /^\{%[ \t]*(end)?([a-z][\w-]*)((?:[ \t]+[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s%]+))*)[ \t]*%\}[ \t]*$/i;
const ATTRIBUTE = /([\w-]+)=(?:"([^"\n]*)"|'([^'\n]*)'|([^\s%]+))/g;

/** Blocks complete on their own line: their end tag (with a caption before it) is optional. */
const SELF_CONTAINED = new Set(['embed', 'file']);
const HINT_STYLES = new Set(['info', 'success', 'warning', 'danger']);

export interface BlockMeta {
  name: string;
  attributes: Record<string, string>;
  /** Set when paired with its end tag (on both tokens). */
  paired?: boolean;
  /** The address of an embed or a file, once resolved for the page (null: shown without a link). */
  href?: string | null;
  /** A file's name, when the page knows it. */
  label?: string;
  /** A tab after the first of its tabs: shown folded. */
  folded?: boolean;
  /** Tabs: whether a tab of it was seen. */
  hasTab?: boolean;
}

/** The block a gitbook_open or gitbook_close token stands for. */
export const blockMeta = (token: MarkdownToken): BlockMeta => token.meta as unknown as BlockMeta;

function attributesOf(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(ATTRIBUTE)) attributes[match[1]] = match[2] ?? match[3] ?? match[4] ?? '';
  return attributes;
}

/** Pairs opens and closes of the same block in the same container; the others stay unpaired. */
function pairBlocks(tokens: MarkdownToken[]): void {
  const open: MarkdownToken[] = [];
  for (const token of tokens) {
    if (token.type === 'gitbook_open') {
      const meta = blockMeta(token);
      const parent = open.length ? blockMeta(open[open.length - 1]) : undefined;
      if (meta.name === 'tab' && parent?.name === 'tabs') {
        meta.folded = parent.hasTab === true;
        parent.hasTab = true;
      }
      open.push(token);
    } else if (token.type === 'gitbook_close') {
      const name = blockMeta(token).name;
      const at = open.findLastIndex((candidate) => blockMeta(candidate).name === name && candidate.level === token.level);
      if (at < 0) continue;
      blockMeta(open[at]).paired = true;
      blockMeta(token).paired = true;
      open.length = at;
    } else if (token.nesting === -1) {
      // A container ends: a block opened inside it is closed inside it or not at all.
      while (open.length && open[open.length - 1].level > token.level) open.pop();
    }
  }
}

/** The markdown-it plugin: GitBook's block tags as tokens, paired, and rendered as HTML. */
export function gitbookBlocks(md: MarkdownParser): void {
  md.block.ruler.before(
    'paragraph',
    'gitbook_block',
    (state, startLine, _endLine, silent) => {
      if (state.sCount[startLine] - state.blkIndent >= 4) return false;
      const start = state.bMarks[startLine] + state.tShift[startLine];
      if (state.src.charCodeAt(start) !== 0x7b /* { */ || state.src.charCodeAt(start + 1) !== 0x25 /* % */) return false;
      const match = TAG_LINE.exec(state.src.slice(start, state.eMarks[startLine]));
      if (!match) return false;
      if (silent) return true;
      const closing = Boolean(match[1]);
      const token = state.push(closing ? 'gitbook_close' : 'gitbook_open', 'div', 0);
      token.block = true;
      token.map = [startLine, startLine + 1];
      token.meta = { name: match[2].toLowerCase(), attributes: closing ? {} : attributesOf(match[3]) } satisfies BlockMeta;
      state.line = startLine + 1;
      return true;
    },
    { alt: ['paragraph', 'reference', 'blockquote', 'list'] },
  );
  md.core.ruler.after('block', 'gitbook_pairs', (state) => pairBlocks(state.tokens));

  const escape = md.utils.escapeHtml;
  const link = (meta: BlockMeta, label: string, download = false) =>
    meta.href ? `<a href="${escape(meta.href)}"${download ? ' download' : ' rel="noopener"'}>${escape(label)}</a>` : escape(label);
  const div = (name: string) => ({ open: () => `<div class="${name}">`, close: '</div>\n' });
  /** The blocks shown, each as its element's start and end. */
  const blocks: Record<string, { open: (meta: BlockMeta) => string; close: string }> = {
    hint: {
      open: (meta) => `<aside class="hint hint-${HINT_STYLES.has(meta.attributes.style ?? '') ? meta.attributes.style : 'info'}" role="note">`,
      close: '</aside>\n',
    },
    tabs: div('tabs'),
    tab: {
      open: (meta) => `<details class="tab"${meta.folded ? '' : ' open'}><summary>${escape(meta.attributes.title ?? 'Tab')}</summary>`,
      close: '</details>\n',
    },
    code: {
      open: (meta) => `<figure class="code">${meta.attributes.title ? `<figcaption>${escape(meta.attributes.title)}</figcaption>` : ''}`,
      close: '</figure>\n',
    },
    'content-ref': div('content-ref'),
    stepper: div('stepper'),
    step: div('step'),
    columns: div('columns'),
    column: div('column'),
    embed: { open: (meta) => `<figure class="embed"><p>${link(meta, meta.attributes.url ?? '')}</p>`, close: '</figure>\n' },
    file: {
      open: (meta) => {
        const name = (meta.attributes.src ?? '').split(/[/?#]/).filter(Boolean).pop() ?? 'file';
        return `<figure class="file"><p>${link(meta, meta.label ?? decodeName(name), true)}</p>`;
      },
      close: '</figure>\n',
    },
  };

  // A self-contained block without its end tag is complete on its line.
  md.renderer.rules.gitbook_open = (tokens, idx) => {
    const meta = blockMeta(tokens[idx]);
    const block = blocks[meta.name];
    if (!block || (!meta.paired && !SELF_CONTAINED.has(meta.name))) return '';
    return `${block.open(meta)}${meta.paired ? '\n' : block.close}`;
  };
  md.renderer.rules.gitbook_close = (tokens, idx) => {
    const meta = blockMeta(tokens[idx]);
    return meta.paired ? (blocks[meta.name]?.close ?? '') : '';
  };
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** The address a block links to (a file's `src`, an embed's `url`), and whether it names a file. */
export function blockAddress(meta: BlockMeta): { value: string; file: boolean } | undefined {
  if (meta.name === 'file' && meta.attributes.src) return { value: meta.attributes.src, file: true };
  if (meta.name === 'embed' && meta.attributes.url) return { value: meta.attributes.url, file: false };
  return undefined;
}
