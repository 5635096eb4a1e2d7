/**
 * A unique index refused the write. MongoDB says E11000 (also inside a bulk write's error);
 * FerretDB's SQLite backend answers a findAndModify with an InternalError quoting SQLite's
 * UNIQUE constraint.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { code?: number; codeName?: string; message?: string; errorResponse?: { code?: number }; writeErrors?: Array<{ code?: number }> };
  if (!e || typeof e !== 'object') return false;
  return (
    e.code === 11000 ||
    e.errorResponse?.code === 11000 ||
    e.codeName === 'DuplicateKey' ||
    (Array.isArray(e.writeErrors) && e.writeErrors.length > 0 && e.writeErrors.every((w) => w.code === 11000)) ||
    /E11000|duplicate key|UNIQUE constraint failed/i.test(e.message ?? '')
  );
}

/**
 * Runs an idempotent upsert again when a concurrent one inserted the same unique row first:
 * the retry then finds that row and updates it, so the same request sent twice at once
 * succeeds twice instead of failing on the duplicate key. `action` must be safe to repeat.
 */
export async function retryOnDuplicateKey<T>(action: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      if (attempt >= attempts || !isDuplicateKeyError(error)) throw error;
    }
  }
}
