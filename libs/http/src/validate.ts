import type { z } from 'zod';
import { NUL_MESSAGE, nulFieldName, nulPath } from '@quire/runtime';
import { HttpError } from './errors';

type Location = 'body' | 'query' | 'params';

/** "title: Too big: expected string to have <=50 characters" — always naming the field. */
export function zodMessage(error: z.ZodError, location: Location): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : location;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/** Parses request input with a zod schema; invalid input is a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: Location, field?: string): z.infer<S> {
  const result = schema.safeParse(value ?? (field ? undefined : {}));
  if (!result.success)
    throw new HttpError(400, `Invalid ${location}: ${field ? `${field}: ${result.error.issues[0]?.message}` : zodMessage(result.error, location)}`);
  return result.data;
}

/**
 * 400 naming the first field (at any depth, object keys included) whose string holds a NUL
 * character: the datastore refuses those, so they are stopped here with the rest of the input.
 */
export function assertNoNul(value: unknown, location: Location): void {
  const path = nulPath(value);
  if (path) throw new HttpError(400, `Invalid ${location}: ${nulFieldName(path, location)}: ${NUL_MESSAGE}`);
}
