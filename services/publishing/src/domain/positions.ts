import { httpError } from '@quire/http';
import type { PublishingContext } from './context';

/** Gap between consecutive positions handed out; moves take the middle of two neighbours. */
export const POSITION_STEP = 1024;

/**
 * `count` fresh positions after everything already in the site, from one atomic $inc on
 * the site (no read-then-write race between two creations).
 */
export async function nextPositions(ctx: PublishingContext, siteId: string, count = 1): Promise<number[]> {
  const site = await ctx.models.Site.findOneAndUpdate({ _id: siteId }, { $inc: { positionSeq: count } }, { returnDocument: 'after' }).lean();
  if (!site) throw httpError.notFound('Site');
  return Array.from({ length: count }, (_, i) => (site.positionSeq - count + i + 1) * POSITION_STEP);
}

export interface Positioned {
  _id: string;
  position: number;
}

/**
 * The position that puts an item just before or after `targetId` among `siblings`
 * (sorted, without the item itself). null when the neighbours are too close to split:
 * the caller renumbers the siblings and asks again.
 */
export function positionNextTo(siblings: Positioned[], targetId: string, where: 'before' | 'after'): number | null {
  const index = siblings.findIndex((s) => s._id === targetId);
  const target = siblings[index];
  const neighbour = where === 'before' ? siblings[index - 1] : siblings[index + 1];
  const other = neighbour ? neighbour.position : target.position + (where === 'before' ? -POSITION_STEP : POSITION_STEP);
  const middle = (target.position + other) / 2;
  return middle === target.position || middle === other || Math.abs(target.position - other) < 1e-6 ? null : middle;
}

export const byPosition = (a: Positioned, b: Positioned) => a.position - b.position || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/** `wanted`, or `wanted-2`, `wanted-3`… — the first not in `taken`. */
export function uniquePath(wanted: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!used.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}
