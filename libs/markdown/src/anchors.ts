/** "Getting Started: Step 1!" → "getting-started-step-1" (letters of any script kept). */
export function headingAnchor(heading: string): string {
  const slug = heading
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/[\s_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'section';
}

/**
 * Unique anchors for a page's headings, in order: a repeated heading gets -1, -2… (the first
 * free one). Search sections and rendered pages both allocate with it, so a search hit's
 * `#anchor` is the rendered heading's id.
 */
export class AnchorAllocator {
  private readonly taken = new Set<string>();
  // Per anchor, the suffix after the last one given: each repeat costs O(1), not O(repeats).
  private readonly suffixes = new Map<string, number>();

  next(heading: string): string {
    const base = headingAnchor(heading);
    let anchor = base;
    if (this.taken.has(anchor)) {
      let n = this.suffixes.get(base) ?? 1;
      while (this.taken.has(`${base}-${n}`)) n++;
      anchor = `${base}-${n}`;
      this.suffixes.set(base, n + 1);
    }
    this.taken.add(anchor);
    return anchor;
  }
}
