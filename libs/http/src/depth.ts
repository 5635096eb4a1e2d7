import { HttpError } from './errors';

/**
 * How deeply a request body may nest. GitBook documents, JSON schemas and conditions are
 * recursive, and every recursive walk over them (validation, merging, rendering) uses the
 * stack: a body nested hundreds of levels would overflow it. Real documents stay far below.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The path of the first place `value` nests deeper than `maxDepth`, or undefined. Iterative,
 * so checking a hostile body cannot itself overflow the stack.
 */
export function tooDeepPath(value: unknown, maxDepth = MAX_BODY_DEPTH): (string | number)[] | undefined {
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= maxDepth) return path;
    const entries: Array<[string | number, unknown]> = Array.isArray(current) ? current.map((item, i) => [i, item]) : Object.entries(current);
    for (const [key, child] of entries) if (child !== null && typeof child === 'object') stack.push({ value: child, path: [...path, key] });
  }
  return undefined;
}

/** 400 naming the field whose value nests too deeply (its top-level name and where it starts). */
export function assertBodyDepth(body: unknown, maxDepth = MAX_BODY_DEPTH): void {
  const path = tooDeepPath(body, maxDepth);
  if (!path) return;
  const field = path.length > 0 ? path.slice(0, 4).join('.') : 'body';
  throw new HttpError(400, `Invalid body: ${field}: nested more than ${maxDepth} levels deep`);
}
