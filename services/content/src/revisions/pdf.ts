import { httpError } from '@quire/http';
import PDFDocument from 'pdfkit';
import type { ContentContext } from '../kernel';
import type { RevisionDoc, RevisionPageDoc } from './revision-store';
import { descendantsOf, treeOf } from './page-tree';
import { loadBodies } from './revisions';

/*
 * A printable PDF of pages: each page's title as a heading (nested by depth) and its
 * markdown as text, with headings, list items and code kept recognisable. The standard
 * PDF fonts cover Latin-1 only; other characters are replaced rather than dropped silently.
 */

function printable(text: string): string {
  return text.replace(/[^\t\n\r\x20-\x7e\xa0-\xff]/g, '?');
}

export function renderPdf(input: { title: string; pages: Array<{ page: RevisionPageDoc; depth: number; markdown: string }> }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: printable(input.title) } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc
      .font('Helvetica-Bold')
      .fontSize(22)
      .text(printable(input.title || 'Untitled'));
    doc.moveDown();
    for (const { page, depth, markdown } of input.pages) {
      doc.moveDown(0.5);
      doc
        .font('Helvetica-Bold')
        .fontSize(Math.max(13, 18 - depth * 2))
        .text(printable(page.title));
      if (page.description) doc.font('Helvetica-Oblique').fontSize(10).text(printable(page.description));
      doc.moveDown(0.3);
      let inCode = false;
      for (const line of markdown.split('\n')) {
        if (line.startsWith('```')) {
          inCode = !inCode;
          continue;
        }
        const heading = /^(#{1,6})\s+(.*)$/.exec(line);
        if (inCode)
          doc
            .font('Courier')
            .fontSize(9)
            .text(printable(line || ' '));
        else if (heading)
          doc
            .font('Helvetica-Bold')
            .fontSize(Math.max(11, 16 - heading[1].length))
            .text(printable(heading[2]));
        else
          doc
            .font('Helvetica')
            .fontSize(11)
            .text(printable(line.replace(/^\s*[-*+]\s+/, '- ').replace(/\*\*|__|`/g, '')));
      }
    }
    doc.end();
  });
}

/**
 * The PDF of a revision (spec GET .../pdf): every page, or `page` with its sub-pages, or
 * with `only` that page alone. Only the selected pages' bodies are read.
 */
export async function renderRevisionPdf(ctx: ContentContext, revision: RevisionDoc, input: { title: string; page?: string; only: boolean }): Promise<Buffer> {
  const tree = treeOf(revision.pages);
  let selected = revision.pages;
  if (input.page) {
    if (!tree.pages.has(input.page)) throw httpError.notFound('Page');
    const ids = new Set(input.only ? [input.page] : [input.page, ...descendantsOf(tree, input.page)]);
    selected = revision.pages.filter((candidate) => ids.has(candidate.id));
  }
  const depth = new Map<string, number>();
  for (const candidate of revision.pages) depth.set(candidate.id, candidate.parent ? (depth.get(candidate.parent) ?? 0) + 1 : 0);
  const bodies = await loadBodies(ctx, selected);
  return renderPdf({
    title: input.title,
    pages: selected.map((candidate) => ({ page: candidate, depth: depth.get(candidate.id) ?? 0, markdown: bodies.get(candidate.bodyHash) ?? '' })),
  });
}
