import MarkdownIt from 'markdown-it';

/*
 * The shared markdown-it instances. `source`: markdown as authors write it, raw HTML kept as
 * text (links, Git sync, rendering); `html`: raw HTML recognised as HTML, so readers of the
 * text (search) can drop it; `linkify`: bare addresses become links too (translation, which
 * must keep them intact).
 */
const make = (options: { html: boolean; linkify: boolean }) => new MarkdownIt({ ...options, typographer: false });
export type MarkdownParser = ReturnType<typeof make>;

const instances = {
  source: () => make({ html: false, linkify: false }),
  html: () => make({ html: true, linkify: false }),
  linkify: () => make({ html: true, linkify: true }),
};

const made = new Map<keyof typeof instances, MarkdownParser>();

/** The shared parser of a kind (made once; do not add rules to it: ask for your own copy with `fresh`). */
export function markdownParser(kind: keyof typeof instances = 'source', options: { fresh?: boolean } = {}): MarkdownParser {
  if (options.fresh) return instances[kind]();
  let parser = made.get(kind);
  if (!parser) {
    parser = instances[kind]();
    made.set(kind, parser);
  }
  return parser;
}

export type MarkdownToken = ReturnType<MarkdownParser['parse']>[number];
