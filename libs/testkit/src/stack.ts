import { execFile, execFileSync, spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { dropStackDatabase, repoRoot } from '@quire/datastore';
import { connectDatabase, createLogger, type Database } from '@quire/runtime';
import { apiClient, type ApiClient } from './api';
import { checkAnswersOf } from './contract';
import { cleanupTestEnvironment, testEnvironment, type TestEnvironment } from './environment';

/** A user made through the operator CLI, with a client that calls as them. */
export interface TestAccount {
  userId: string;
  token: string;
  /** The organization `bootstrap` created ('' for `add-member`). */
  organizationId: string;
  api: ApiClient;
}

export interface TestOrganization<R extends string> {
  id: string;
  admin: TestAccount;
  members: Record<R, TestAccount>;
  outsider: TestAccount;
}

export interface TestStack {
  baseUrl: string;
  adminToken: string;
  dataDir: string;
  env: TestEnvironment;
  /** The environment the stack runs with (for the CLI and extra processes). */
  processEnv: NodeJS.ProcessEnv;
  /** Everything the stack printed so far (last 2 MB); of a shared stack, since this suite took it. */
  output(): string;
  /** Runs `npm run cli -- <args>` against this stack; returns the parsed last JSON line. */
  cli(args: string[]): Promise<any>;
  /** `cli([...args, '--json'])` for `bootstrap` / `add-member` (run on the stack's control socket when it has one), plus a client calling as that user. */
  account(args: string[]): Promise<TestAccount>;
  /**
   * An organization (admin `admin@<domain>`) with one member per role asked
   * (`<role>@<domain>`, 'guest' included), and an outsider who is admin of another one.
   */
  organization<R extends string>(options: { domain: string; title?: string; roles: readonly R[] }): Promise<TestOrganization<R>>;
  /**
   * A connection of the test's own to one service's database in this stack (to look at what it
   * stored, or to arrange a state the API cannot make), with the service's models when given
   * `registerModels`. The caller closes it.
   */
  serviceDatabase(service: string, registerModels?: (db: Database) => void): Promise<Database>;
  /** The running processes of one service of the stack (the supervisor's children running its main.js), for crash tests. */
  servicePids(service: string): number[];
  /** Stops the whole stack the way Ctrl-C does; resolves when every process has exited. Nothing for a shared stack (the run stops it). */
  stop(): Promise<void>;
  /** Exit code and signal of the stack process once stopped (never, for a shared stack). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the whole stack exactly as `npm start` runs it (tools/stack start script), on
 * free ports, with this suite's databases and Redis prefix and a fresh data dir
 * (or, with `reuse`, the data dir and databases of a stack stopped with `keepData`).
 * For a suite that needs settings of its own, stops or kills processes, or reads what the
 * stack logged from its start; the others share their jest worker's (sharedTestStack).
 */
export async function startTestStack(
  extraEnv: NodeJS.ProcessEnv = {},
  options: { reuse?: Pick<TestStack, 'dataDir' | 'env'>; keepData?: boolean } = {},
): Promise<TestStack> {
  const env = options.reuse?.env ?? (await testEnvironment());
  const dataDir = options.reuse?.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'quire-stack-'));
  const processEnv: NodeJS.ProcessEnv = { ...process.env, ...stackEnvOf(env, dataDir), ...extraEnv };
  // Whatever happens to the test, its stacks do not outlive it: the stack stops when this
  // process goes away and the IPC channel closes (an 'exit' hook would not do under jest, whose
  // test files see a process object of their own, and whose workers may be killed).
  const child = spawn(process.execPath, [path.join(repoRoot(), 'tools/stack/dist/start.js')], { env: processEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const baseUrl = await stackReady(() => output, exited).catch(async (error: unknown) => {
    // Not left starting (and loading the machine) for the rest of the run: the suite has no stack to stop.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    throw error;
  });
  return stackHandle(
    { baseUrl, adminToken: adminTokenOf(dataDir), dataDir, env, processEnv },
    {
      output: () => output,
      exited,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
        if (options.keepData) return;
        await cleanupTestEnvironment(env).catch(() => {});
        // A stack that ran a datastore of its own (no MONGODB_URI) made a PostgreSQL database for its data dir.
        if (!processEnv.MONGODB_URI) await dropStackDatabase(dataDir, processEnv).catch(() => {});
        rmSync(dataDir, { recursive: true, force: true });
      },
    },
  );
}

/** What one stack process is told (ports, data dir, the suite's databases and Redis prefix), besides the test process's own environment. */
export function stackEnvOf(env: TestEnvironment, dataDir: string): Record<string, string | undefined> {
  return {
    PORT: '0',
    QUIRE_DATA_DIR: dataDir,
    MONGODB_URI: env.mongodbUri,
    QUIRE_FERRETDB_POSTGRES_URL: env.ferretdbPostgresUrl,
    DB_PREFIX: env.dbPrefix,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    LOG_LEVEL: 'warn',
  };
}

/** What a stack printed that the tests keep: its last 2 MB. */
const OUTPUT_KEPT = 2_000_000;

/** Resolves with the gateway's URL once the stack says it is ready; rejects when it exits first or takes longer than `timeoutMs`. */
export function stackReady(output: () => string, exited: Promise<{ code: number | null }>, timeoutMs = 60_000): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let done = false;
    const finish = (error?: Error, url?: string) => {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(url!);
    };
    const poll = setInterval(() => {
      const ready = /Quire is ready at (http:\/\/\S+)/.exec(output());
      if (ready) finish(undefined, ready[1]);
    }, 50);
    const timer = setTimeout(() => finish(new Error(`stack did not become ready in ${timeoutMs / 1000} s:\n${output().slice(-20_000)}`)), timeoutMs);
    void exited.then(({ code }) => finish(new Error(`stack exited with ${code} before it was ready:\n${output().slice(-20_000)}`)));
  });
}

export const adminTokenOf = (dataDir: string): string => readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();

/** What the running stack of `dataDir` wrote of itself (tools/stack's StackState): its supervisor, its control socket. */
const runningState = (dataDir: string) => JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as { pid: number; controlSocket?: string };

/**
 * Runs an operator command on the stack's control socket (tools/stack's commands.ts: no process
 * per command, as the CLI takes); undefined when the stack has none.
 */
async function runCommand(dataDir: string, args: string[]): Promise<any> {
  let socketPath: string | undefined;
  try {
    socketPath = runningState(dataDir).controlSocket;
  } catch {
    return undefined;
  }
  if (!socketPath) return undefined;
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    // A connection per command (agent: false): a kept-alive one the supervisor closes meanwhile fails the next write (EPIPE).
    const call = request(
      { socketPath, agent: false, path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, timeout: 60_000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    call.on('timeout', () => call.destroy(new Error(`the stack's control socket did not answer ${args[0]} in 60 s`)));
    call.on('error', reject);
    call.end(JSON.stringify({ args }));
  });
  const answer = JSON.parse(body) as Record<string, unknown>;
  if (status !== 200) throw new Error(`${args.join(' ')}: ${String(answer.error)}`);
  return answer;
}

/** A running stack, as the suite sees it: what it is, and how it stops (or not, when shared). */
export function stackHandle(
  running: Pick<TestStack, 'baseUrl' | 'adminToken' | 'dataDir' | 'env' | 'processEnv'>,
  lifetime: Pick<TestStack, 'output' | 'exited' | 'stop'>,
): TestStack {
  const { baseUrl, dataDir, env, processEnv } = running;
  checkAnswersOf(baseUrl);
  const root = repoRoot();
  const run = promisify(execFile);
  const stack: TestStack = {
    ...running,
    ...lifetime,
    async cli(args) {
      const { stdout } = await run(process.execPath, [path.join(root, 'tools/stack/dist/cli.js'), ...args], { env: processEnv, timeout: 60_000 });
      const lines = stdout.trim().split('\n');
      return JSON.parse(lines[lines.length - 1]);
    },
    async account(args) {
      const result = (await runCommand(dataDir, [...args, '--json'])) ?? (await stack.cli([...args, '--json']));
      return { ...result, organizationId: result.organizationId ?? '', api: apiClient(baseUrl, result.token) };
    },
    async organization({ domain, title, roles }) {
      const admin = await stack.account(['bootstrap', '--email', `admin@${domain}`, '--org', title ?? domain]);
      const members = {} as Record<(typeof roles)[number], TestAccount>;
      for (const role of roles)
        members[role] = await stack.account(['add-member', '--org', admin.organizationId, '--email', `${role}@${domain}`, '--role', role]);
      const outsider = await stack.account(['bootstrap', '--email', `admin@outside.${domain}`, '--org', `Outside ${title ?? domain}`]);
      return { id: admin.organizationId, admin, members, outsider };
    },
    serviceDatabase(service, registerModels = () => {}) {
      return connectDatabase(service, { MONGODB_URI: env.mongodbUri, DB_PREFIX: env.dbPrefix }, createLogger(`${service}-test`, 'silent'), registerModels);
    },
    servicePids(service) {
      const supervisor = runningState(dataDir).pid;
      try {
        return execFileSync('pgrep', ['-P', String(supervisor), '-f', `services/${service}/dist/main\\.js`], { encoding: 'utf8' })
          .trim()
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        return []; // pgrep exits 1 when nothing matches
      }
    },
  };
  return stack;
}
