/*
 * NUL characters in input. The datastore refuses a string that holds one (documents are
 * stored as C strings), so a request carrying one would fail deep inside a query, after
 * checks ran, as an error that reads like an outage. They are refused where input is
 * parsed instead (REST: libs/http routes.ts; gRPC: grpc.ts), with the field named.
 */

/** What the caller is told about the field. */
export const NUL_MESSAGE = 'must not contain NUL characters';

/**
 * The path of the first string (value or object key) in `value` that holds a NUL character,
 * or undefined. Binary values (Buffer, Uint8Array) may hold any byte and are not looked into.
 * Iterative, so a deeply nested value cannot overflow the stack.
 */
export function nulPath(value: unknown): (string | number)[] | undefined {
  // Each entry links to its parent: the path is built only for the one found (copying it at
  // every level would make a deep value cost its depth squared).
  type Entry = { value: unknown; key?: string | number; parent?: Entry };
  const pathOf = (entry: Entry | undefined, last?: string): (string | number)[] => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let at = entry; at?.parent; at = at.parent) path.push(at.key!);
    return path.reverse();
  };
  const stack: Entry[] = [{ value }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const current = entry.value;
    if (typeof current === 'string') {
      if (current.includes('\0')) return pathOf(entry);
      continue;
    }
    if (current === null || typeof current !== 'object' || ArrayBuffer.isView(current)) continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(current) ? current.map((item, i) => [i, item]) : Object.entries(current);
    for (const [key] of entries) if (typeof key === 'string' && key.includes('\0')) return pathOf(entry, key);
    // Pushed last to first, so that the first field in order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], key: entries[i][0], parent: entry });
  }
  return undefined;
}

/** The path as a field name for a message (`title`, `items.2.name`), with NUL shown as `\0`; `whole` when it is the value itself. */
export function nulFieldName(path: (string | number)[], whole: string): string {
  return path.length > 0 ? path.map((part) => String(part).replaceAll('\0', '\\0')).join('.') : whole;
}
