import type { z } from 'zod';

/*
 * JSON kept as text in a document field. A service stores a value as JSON text when its keys
 * may be anything (a stored key may not hold '.' nor start with '$': design.md §5) or when it
 * is only ever read whole. The model keeps such a field a plain string, so the documents
 * written before stay readable as they are; `storedJson(name, schema)`, declared beside the
 * model, is the one way in and out of it:
 *
 *  - `write(value)` checks the value with the schema and gives the text to store: the value as
 *    given, JSON.stringify'd (the schema only checks it, so what is stored does not change);
 *  - `read(text)` parses the text with the schema and gives the typed value. Text that is
 *    absent, not JSON or not of the schema is a StoredJsonError naming the field, unless the
 *    field declares what it reads as then (`absent`, `fallback`).
 *
 * It converts values, not documents: lean() results and hydrated documents read alike.
 */

export interface StoredJsonOptions<T> {
  /**
   * What an absent field (null, undefined or '') reads as: documents from before the field, or
   * lean reads, which skip mongoose's defaults. Without it (and without `fallback`), an error.
   */
  absent?: T;
  /**
   * What the field reads as when its text is unusable (absent, not JSON, or not of the schema),
   * for a value the service can do without. Without it, an error.
   */
  fallback?: T;
}

/** A JSON text field: its schema-checked way in and way out. */
export interface StoredJson<S extends z.ZodType> {
  /** The field, as errors name it (e.g. `Integration.blocks`). */
  readonly field: string;
  /** The stored text as the value of the schema. */
  read(text: string | null | undefined): z.output<S>;
  /** The text to store for `value`, once the schema accepts it. */
  write(value: z.input<S>): string;
}

/** A value refused on its way into a JSON text field, or stored text that does not read. */
export class StoredJsonError extends Error {
  constructor(
    readonly field: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`stored JSON ${field}: ${problem}`, options);
    this.name = 'StoredJsonError';
  }
}

/** The schema's complaints in one line: `path: message; …` (the first few). */
const describeIssues = (error: z.ZodError) =>
  error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');

/**
 * Declares a JSON text field of a model: `field` names it in errors, `schema` is what it holds.
 * The declared `absent` and `fallback` must fit the schema (checked here, once).
 */
export function storedJson<S extends z.ZodType>(field: string, schema: S, options: StoredJsonOptions<z.input<S>> = {}): StoredJson<S> {
  const write = (value: z.input<S>): string => {
    const checked = schema.safeParse(value);
    if (!checked.success)
      throw new StoredJsonError(field, `refused a value that does not fit its schema (${describeIssues(checked.error)})`, { cause: checked.error });
    const text = JSON.stringify(value);
    if (text === undefined) throw new StoredJsonError(field, 'refused a value that has no JSON text');
    return text;
  };
  // Kept as text and parsed at each use: every caller gets a value of its own to change.
  const absentText = options.absent === undefined ? undefined : write(options.absent);
  const fallbackText = options.fallback === undefined ? undefined : write(options.fallback);
  const declared = (text: string): z.output<S> => schema.parse(JSON.parse(text));
  const orFallback = (problem: string, cause?: unknown): z.output<S> => {
    if (fallbackText !== undefined) return declared(fallbackText);
    throw new StoredJsonError(field, problem, cause === undefined ? undefined : { cause });
  };
  return {
    field,
    read(text) {
      if (text === null || text === undefined || text === '') return absentText !== undefined ? declared(absentText) : orFallback('absent');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        return orFallback('the stored text is not JSON', error);
      }
      const parsed = schema.safeParse(json);
      return parsed.success ? parsed.data : orFallback(`the stored value does not fit its schema (${describeIssues(parsed.error)})`, parsed.error);
    },
    write,
  };
}
