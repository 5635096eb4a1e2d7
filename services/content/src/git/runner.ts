import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scrubSecrets, type RemoteCredentials } from './remote';

/*
 * Runs the git binary for one operation, in a fresh temporary directory that is always
 * removed. Git sees a clean environment: no system or global configuration (so no
 * `url.*.insteadOf` rewriting the address, no proxy), no proxy variable, no terminal
 * prompt, only the allowed transports, no redirects, the repository host pinned to the
 * addresses that were checked (repository-address.ts), and credentials only through a
 * credential helper that reads them from environment variables (nothing secret on a
 * command line). What git prints never leaves this module as an error message: callers
 * get a generic reason, the scrubbed detail goes to the log.
 */

/** The generic reasons a git command against the repository fails with (shown in git info). */
export const GIT_FAILURES = {
  unreachable: 'failed to reach the repository',
  authentication: 'authentication failed',
  refNotFound: 'ref not found',
  internal: 'Internal error while running the Git operation',
} as const;

/** A failed git command: `message` is one of GIT_FAILURES, `detail` git's own words (scrubbed, for the log). */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
  }
}

/** The fetched repository is over the configured size. */
export class RepositoryTooLargeError extends Error {}

export interface GitSession {
  /** The (bare) repository git runs in (its directory is the working directory). */
  repo: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  credentials: RemoteCredentials | null;
}

// The helper answers only `get`, and only for the repository's own protocol and host (not
// for a server a redirect points to); git's `store`/`erase` calls have nothing to persist.
const CREDENTIAL_HELPER = [
  '!f() { test "$1" = get || return 0; p=; h=;',
  'while IFS= read -r line; do case "$line" in protocol=*) p="${line#protocol=}";; host=*) h="${line#host=}";; esac; done;',
  'test "$p" = "$GIT_SYNC_PROTOCOL" && test "$h" = "$GIT_SYNC_HOST" || return 0;',
  `printf 'username=%s\\npassword=%s\\n' "$GIT_SYNC_USERNAME" "$GIT_SYNC_PASSWORD"; }; f`,
].join(' ');

export interface SessionOptions {
  allowedProtocols: readonly string[];
  /** The repository the credentials are for. */
  remote: string;
  credentials: RemoteCredentials | null;
  /** curl resolve entries (`host:port:address[,address]`): the checked addresses git must connect to. */
  pinnedHosts?: readonly string[];
  signal: AbortSignal;
}

function gitEnvironment(home: string, options: SessionOptions): NodeJS.ProcessEnv {
  const { allowedProtocols, remote, credentials } = options;
  const config: Array<[string, string]> = [
    // An empty value resets the helper list, then ours is the only one.
    ['credential.helper', ''],
    ...(credentials ? ([['credential.helper', CREDENTIAL_HELPER]] as Array<[string, string]>) : []),
    ['init.defaultBranch', 'main'],
    ['core.hooksPath', os.devNull],
    // A redirect would lead to an address nobody checked (git follows the first one by default).
    ['http.followRedirects', 'false'],
    // Empty: no proxy, whatever curl would otherwise take from the environment.
    ['http.proxy', ''],
    // Connect to the checked addresses only: a DNS answer changed since the check is not used.
    ...(options.pinnedHosts ?? []).map((entry): [string, string] => ['http.curloptResolve', entry]),
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: allowedProtocols.join(':'),
    // A transfer slower than 1 KB/s for a minute is abandoned (the job timeout bounds the rest).
    GIT_HTTP_LOW_SPEED_LIMIT: '1000',
    GIT_HTTP_LOW_SPEED_TIME: '60',
    GIT_CONFIG_COUNT: String(config.length),
  };
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  if (credentials) {
    const url = new URL(remote);
    env.GIT_SYNC_PROTOCOL = url.protocol.replace(/:$/, '');
    env.GIT_SYNC_HOST = url.host;
    env.GIT_SYNC_USERNAME = credentials.username;
    env.GIT_SYNC_PASSWORD = credentials.password;
  }
  return env;
}

/** Runs `work` with an empty bare repository in a temporary directory, removed afterwards. */
export async function withGitSession<T>(options: SessionOptions, work: (session: GitSession) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-git-'));
  try {
    const home = path.join(dir, 'home');
    await mkdir(home);
    const env = gitEnvironment(home, options);
    const repo = path.join(dir, 'repo.git');
    await runGit({ repo: dir, env, signal: options.signal, credentials: options.credentials }, ['init', '--quiet', '--bare', repo]);
    // GIT_DIR: git never looks for a repository anywhere else.
    return await work({ repo, env: { ...env, GIT_DIR: repo }, signal: options.signal, credentials: options.credentials });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    else total += (await stat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

export interface RunOptions {
  input?: string | Buffer;
  /** Stdout beyond this many bytes stops the command (RepositoryTooLargeError). */
  maxOutputBytes?: number;
  /** Stops the command when the repository's objects grow beyond this (fetches). */
  maxRepoBytes?: number;
}

const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

/** Runs `git <args>` in the session's repository; resolves with stdout. */
export function runGit(session: GitSession, args: string[], options: RunOptions = {}): Promise<Buffer> {
  session.signal.throwIfAborted();
  return new Promise<Buffer>((resolve, reject) => {
    // Its own process group: git runs helpers (git-remote-http…) that must die with it.
    const child = spawn('git', args, { cwd: session.repo, env: session.env, stdio: 'pipe', detached: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let stopped: Error | null = null;
    const stop = (error: Error) => {
      stopped ??= error;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const onAbort = () => stop(session.signal.reason instanceof Error ? session.signal.reason : new Error('aborted'));
    session.signal.addEventListener('abort', onAbort, { once: true });
    const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const watcher =
      options.maxRepoBytes === undefined
        ? undefined
        : setInterval(() => {
            void directoryBytes(path.join(session.repo, 'objects')).then((bytes) => {
              if (bytes > (options.maxRepoBytes as number)) stop(new RepositoryTooLargeError(`the repository is larger than ${options.maxRepoBytes} bytes`));
            });
          }, 250);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutput) stop(new RepositoryTooLargeError(`the repository content is larger than ${maxOutput} bytes`));
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-8_192);
    });
    // git may exit before reading all its input (an error): that is reported by its exit code.
    child.stdin.on('error', () => {});
    child.on('error', (error) => stop(new GitCommandError(GIT_FAILURES.internal, `could not run git: ${error.message}`)));
    child.on('close', (code) => {
      session.signal.removeEventListener('abort', onAbort);
      if (watcher) clearInterval(watcher);
      if (stopped) return reject(stopped);
      if (code !== 0) return reject(new GitCommandError(reasonOf(args[0], stderr), describeFailure(args[0], stderr, session.credentials)));
      resolve(Buffer.concat(chunks));
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

// The commands that talk to the repository; any other failing is ours.
const REMOTE_COMMANDS = new Set(['fetch', 'push', 'ls-remote']);

/** The generic reason for a failed command: never git's text, which tells files from folders and open ports from closed ones. */
function reasonOf(command: string, stderr: string): string {
  if (!REMOTE_COMMANDS.has(command)) return GIT_FAILURES.internal;
  if (/authentication failed|could not read (username|password)|terminal prompts disabled|HTTP Basic: Access denied|returned error: 40[13]\b/i.test(stderr))
    return GIT_FAILURES.authentication;
  if (/couldn't find remote ref|src refspec .* does not match/i.test(stderr)) return GIT_FAILURES.refNotFound;
  return GIT_FAILURES.unreachable;
}

/** The meaningful lines of git's stderr ("fatal: …", "error: …"), scrubbed. */
function describeFailure(command: string, stderr: string, credentials: RemoteCredentials | null): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(hint|remote: (Counting|Compressing|Enumerating|Total))/i.test(line));
  const important = lines.filter((line) => /^(fatal|error|!|remote: error)/i.test(line));
  const text = (important.length > 0 ? important : lines.slice(-3)).join(' ').slice(0, 1_000);
  return scrubSecrets(`git ${command} failed: ${text || 'no details'}`, credentials);
}

/** One entry of `git ls-tree -r -l`. */
export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  oid: string;
  size: number;
  path: string;
}

export async function listTree(session: GitSession, treeish: string): Promise<TreeEntry[]> {
  const out = await runGit(session, ['ls-tree', '-r', '-l', '-z', treeish]);
  const entries: TreeEntry[] = [];
  for (const record of out.toString('utf8').split('\0')) {
    const match = /^(\d+) (blob|tree|commit) ([0-9a-f]+)\s+(-|\d+)\t([\s\S]+)$/.exec(record);
    if (match)
      entries.push({ mode: match[1], type: match[2] as TreeEntry['type'], oid: match[3], size: match[4] === '-' ? 0 : Number(match[4]), path: match[5] });
  }
  return entries;
}

/** The contents of the given blobs, read in one `git cat-file --batch`. */
export async function readBlobs(session: GitSession, oids: readonly string[], maxBytes: number): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  const unique = [...new Set(oids)];
  if (unique.length === 0) return blobs;
  const out = await runGit(session, ['cat-file', '--batch'], { input: `${unique.join('\n')}\n`, maxOutputBytes: maxBytes + unique.length * 128 });
  let offset = 0;
  while (offset < out.length) {
    const end = out.indexOf(10, offset);
    if (end < 0) break;
    const header = out.subarray(offset, end).toString('utf8').split(' ');
    offset = end + 1;
    if (header[1] === 'missing' || header.length < 3) continue;
    const size = Number(header[2]);
    blobs.set(header[0], out.subarray(offset, offset + size));
    offset += size + 1;
  }
  return blobs;
}

/** Fetches the tip of `ref` (shallow) and returns its commit, or null when the branch does not exist. */
export async function fetchBranch(session: GitSession, url: string, ref: string, maxRepoBytes: number): Promise<string | null> {
  try {
    await runGit(session, ['fetch', '--quiet', '--depth=1', '--no-tags', '--', url, `+${ref}:refs/sync/remote`], { maxRepoBytes });
  } catch (error) {
    if (error instanceof GitCommandError && error.message === GIT_FAILURES.refNotFound) return null;
    throw error;
  }
  return (await runGit(session, ['rev-parse', '--verify', 'refs/sync/remote^{commit}'])).toString('utf8').trim();
}

/** The message of a commit. */
export async function commitMessage(session: GitSession, commit: string): Promise<string> {
  const raw = (await runGit(session, ['cat-file', 'commit', commit])).toString('utf8');
  const start = raw.indexOf('\n\n');
  return start < 0 ? '' : raw.slice(start + 2).replace(/\n+$/, '');
}

export async function treeOfCommit(session: GitSession, commit: string): Promise<string> {
  return (await runGit(session, ['rev-parse', '--verify', `${commit}^{tree}`])).toString('utf8').trim();
}

/** A path as git fast-import reads it (C-style quoted when it has to be). */
function fastImportPath(file: string): string {
  if (!/["\\\n]/.test(file) && !file.startsWith('"')) return file;
  return `"${file.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

export interface NewCommit {
  parent: string | null;
  message: string;
  identity: { name: string; email: string };
  /** Files to write (path → content) and paths to remove from the parent's tree. */
  files: Map<string, Buffer>;
  removals: string[];
}

/** Writes a commit with one `git fast-import` (no work tree, no file per page on disk); returns its id. */
export async function writeCommit(session: GitSession, commit: NewCommit): Promise<string> {
  const ref = 'refs/sync/export';
  const person = `${commit.identity.name} <${commit.identity.email}> ${Math.floor(Date.now() / 1000)} +0000`;
  const message = Buffer.from(commit.message, 'utf8');
  const parts: Buffer[] = [Buffer.from(`commit ${ref}\nauthor ${person}\ncommitter ${person}\ndata ${message.length}\n`), message, Buffer.from('\n')];
  if (commit.parent) parts.push(Buffer.from(`from ${commit.parent}\n`));
  for (const removed of commit.removals) parts.push(Buffer.from(`D ${fastImportPath(removed)}\n`));
  for (const [file, data] of commit.files) parts.push(Buffer.from(`M 100644 inline ${fastImportPath(file)}\ndata ${data.length}\n`), data, Buffer.from('\n'));
  parts.push(Buffer.from('done\n'));
  await runGit(session, ['fast-import', '--quiet', '--done', '--force'], { input: Buffer.concat(parts) });
  return (await runGit(session, ['rev-parse', '--verify', ref])).toString('utf8').trim();
}

/** Pushes `commit` to `ref` (a fast-forward: no force); false when the remote refused it because the branch moved. */
export async function pushCommit(session: GitSession, url: string, commit: string, ref: string): Promise<boolean> {
  try {
    await runGit(session, ['push', '--quiet', '--', url, `${commit}:${ref}`]);
    return true;
  } catch (error) {
    if (error instanceof GitCommandError && /non-fast-forward|fetch first|\[rejected\]|stale info/i.test(error.detail)) return false;
    throw error;
  }
}
