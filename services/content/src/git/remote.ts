import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import path from 'node:path';

/*
 * Repository addresses and their credentials. A request's url may carry basic-auth
 * credentials (https://user:token@host/repo.git): they are split off at once. The address
 * is stored and shown without them; the credentials travel to the job sealed (the queue
 * lives in Redis) and reach git only through its environment (runner.ts), never on a
 * command line. Any text git prints is scrubbed of them before it is recorded.
 */

export interface RemoteCredentials {
  username: string;
  password: string;
}

export interface GitRemote {
  /** The address without credentials. */
  url: string;
  credentials: RemoteCredentials | null;
}

/** A url that cannot be used; the message never repeats the url (it may hold a secret). */
export class RemoteUrlError extends Error {}

// Control characters would let a credential inject lines into git's credential protocol.
const CONTROL = /[\u0000-\u001f\u007f]/;

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new RemoteUrlError('the credentials in the address are not validly percent-encoded');
  }
}

/** Splits `raw` into an address git may use and its credentials; throws RemoteUrlError. */
export function parseRemote(raw: string, allowedProtocols: readonly string[]): GitRemote {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RemoteUrlError('must be an absolute repository address such as https://host/owner/repo.git');
  }
  const protocol = url.protocol.replace(/:$/, '').toLowerCase();
  if (!allowedProtocols.includes(protocol)) {
    throw new RemoteUrlError(`the protocol "${protocol}" is not allowed (allowed: ${allowedProtocols.join(', ')})`);
  }
  if (protocol === 'file') {
    if (url.username || url.password) throw new RemoteUrlError('a file address cannot carry credentials');
    if (url.hostname && url.hostname !== 'localhost') throw new RemoteUrlError('a file address cannot name a host');
  } else if (!url.hostname) {
    throw new RemoteUrlError('must name a host');
  }
  if (url.pathname === '/' || url.pathname === '') throw new RemoteUrlError('must name a repository');
  const username = decoded(url.username);
  const password = decoded(url.password);
  if (CONTROL.test(username) || CONTROL.test(password) || CONTROL.test(raw)) throw new RemoteUrlError('must not contain control characters');
  url.username = '';
  url.password = '';
  url.hash = '';
  return { url: url.href, credentials: username || password ? { username, password } : null };
}

/** "owner/repo" for a hosted address, "repo" for a local one (no `.git`). */
export function repositoryName(cleanUrl: string): string {
  const url = new URL(cleanUrl);
  const trimmed = decodeURIComponent(url.pathname)
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  return url.protocol === 'file:' ? path.posix.basename(trimmed) : trimmed.replace(/^\/+/, '');
}

/** The GitSyncProvider shown in git info: what the caller said, else guessed from the host. */
export function providerOf(cleanUrl: string, given?: 'github' | 'gitlab'): 'github' | 'gitlab' {
  if (given) return given;
  return /gitlab/i.test(new URL(cleanUrl).hostname) ? 'gitlab' : 'github';
}

// Shorter secrets are not scrubbed: replacing every "ab" of a message would garble it, and
// such a secret protects nothing.
const MIN_SCRUBBED = 4;

/** `text` without the credentials (plain or percent-encoded) nor any userinfo of an address. */
export function scrubSecrets(text: string, credentials: RemoteCredentials | null): string {
  let out = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1');
  if (credentials) {
    for (const secret of [credentials.password, credentials.username]) {
      if (secret.length < MIN_SCRUBBED) continue;
      for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('[redacted]');
    }
  }
  return out;
}

/*
 * Sealing for the job queue: AES-256-GCM under a key derived from the service's internal
 * secret, so what sits in Redis until the job runs is useless without that secret.
 */
function keyOf(secret: string): Buffer {
  return createHash('sha256').update(`git-credentials\n${secret}`).digest();
}

export function sealCredentials(secret: string, credentials: RemoteCredentials): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

export function openCredentials(secret: string, sealed: string): RemoteCredentials {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  return JSON.parse(plain) as RemoteCredentials;
}
