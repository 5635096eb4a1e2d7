import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Appends base62 characters made of `bytes` to `id` until it is `length` long. */
function base62(id: string, bytes: Uint8Array, length: number): string {
  for (let i = 0; i < bytes.length && id.length < length; i++) {
    // 248 = 62 * 4: rejecting bytes above it keeps the alphabet unbiased.
    if (bytes[i] < 248) id += ALPHABET[bytes[i] % 62];
  }
  return id;
}

/** An opaque random id (20 base62 characters, ~119 bits). */
export function newId(length = 20): string {
  const id = base62('', randomBytes(length * 2), length);
  return id.length === length ? id : newId(length);
}

/**
 * An id shaped like newId()'s but derived from `key`: the same key, the same id (what lets the
 * datastore's unique `_id` settle which of two concurrent creations for one purpose wins).
 */
export function idOfKey(key: string, length = 20): string {
  let id = '';
  for (let round = 0; id.length < length; round += 1) id = base62(id, createHash('sha512').update(`${round}:${key}`).digest(), length);
  return id;
}

/** A random secret for tokens and keys, URL-safe. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** One-way hash of a secret: what we store and look tokens up by. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
