import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An opaque random id (20 base62 characters, ~119 bits). */
export function newId(length = 20): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  for (let i = 0; i < bytes.length && id.length < length; i++) {
    // 248 = 62 * 4: rejecting bytes above it keeps the alphabet unbiased.
    if (bytes[i] < 248) id += ALPHABET[bytes[i] % 62];
  }
  return id.length === length ? id : newId(length);
}

/** A random secret for tokens and keys, URL-safe. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** One-way hash of a secret: what we store and look tokens up by. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
