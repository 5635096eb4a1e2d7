import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@quire/datastore';
import { cleanupTestEnvironment, testEnvironment, type TestEnvironment } from './environment';
import { adminTokenOf, stackEnvOf, stackHandle, stackReady, startTestStack, type TestStack } from './stack';

/*
 * One stack per jest worker, shared by the suites that run in it one after another, instead of
 * a stack per suite: each suite works in organizations (and users) of its own, so what another
 * suite left in the stack is not its business. The first suite of a worker to ask starts it; it
 * outlives that suite (its output goes to a file, not to the suite), and its descriptor in the
 * run's directory (QUIRE_TEST_STACKS_DIR, made by the global setup) lets the worker's next suites
 * find it. It stops with its worker (the IPC channel, as any test stack), and the global teardown
 * waits for that and drops its databases.
 */

/**
 * The settings of every shared stack: no rate limit that a run's many suites calling from one
 * address could reach, integrations that may reach receivers on loopback (the suites' tunnels
 * and script targets), and Git jobs that end within a test's patience (20 s, not 10 minutes).
 */
const SHARED_STACK_ENV = { RATE_LIMIT_POINTS: '1000000', INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true', GIT_OPERATION_TIMEOUT_MS: '20000' };

const RUN_DIR = 'QUIRE_TEST_STACKS_DIR';

/** What the worker's next suites need to use a shared stack, kept in the run's directory. */
interface SharedStack {
  pid: number;
  baseUrl: string;
  adminToken: string;
  dataDir: string;
  env: TestEnvironment;
  /** What the stack was started with besides the test process's environment (for the CLI). */
  stackEnv: Record<string, string>;
  /** Where its output goes. */
  log: string;
}

/**
 * The stack of this jest worker, started by the first suite that asks (SHARED_STACK_ENV), as a
 * TestStack whose `stop()` does nothing and whose `output()` is what it printed since this call.
 * `settings`: those the suite relies on, which must be among the shared stack's (a suite that
 * needs others starts a stack of its own). Outside a jest run of the preset (no run directory):
 * a stack of the suite's own.
 */
export async function sharedTestStack(settings: Record<string, string> = {}): Promise<TestStack> {
  const missing = Object.entries(settings).filter(([name, value]) => (SHARED_STACK_ENV as Record<string, string>)[name] !== value);
  if (missing.length)
    throw new Error(`the shared test stack does not run with ${missing.map(([name, value]) => `${name}=${value}`).join(', ')}: use startTestStack`);
  const runDir = process.env[RUN_DIR];
  if (!runDir) return startTestStack(SHARED_STACK_ENV);
  const file = path.join(runDir, `worker-${process.env.JEST_WORKER_ID ?? '1'}.json`);
  let shared = readShared(file);
  if (!shared || !alive(shared.pid)) {
    if (shared) await removeShared(shared);
    shared = await startShared(runDir);
    writeFileSync(file, JSON.stringify(shared), { mode: 0o600 });
  }
  const { log, stackEnv, pid: _pid, ...running } = shared;
  const from = statSync(log).size;
  return stackHandle(
    { ...running, processEnv: { ...process.env, ...stackEnv } },
    { output: () => tail(log, from), exited: new Promise(() => {}), stop: async () => {} },
  );
}

/** The run's directory of shared stacks (global setup; once however many projects call it). */
export function prepareSharedStacks(): void {
  process.env[RUN_DIR] ??= mkdtempSync(path.join(os.tmpdir(), 'quire-test-stacks-'));
}

/** Stops the run's shared stacks (their workers gone, they are stopping already), drops their databases, removes the directory. */
export async function stopSharedStacks(): Promise<void> {
  const runDir = process.env[RUN_DIR];
  if (!runDir) return;
  let names: string[] = [];
  try {
    names = readdirSync(runDir);
  } catch {
    // removed already
  }
  const stacks = names.filter((name) => /^worker-.+\.json$/.test(name)).map((name) => readShared(path.join(runDir, name)));
  await Promise.all(stacks.map((shared) => shared && removeShared(shared)));
  rmSync(runDir, { recursive: true, force: true });
  delete process.env[RUN_DIR];
}

async function startShared(runDir: string): Promise<SharedStack> {
  const env = await testEnvironment();
  const dataDir = mkdtempSync(path.join(runDir, 'stack-'));
  const stackEnv = { ...stackEnvOf(env, dataDir), ...SHARED_STACK_ENV } as Record<string, string>;
  const log = `${dataDir}.log`;
  const fd = openSync(log, 'a');
  const child = spawn(process.execPath, [path.join(repoRoot(), 'tools/stack/dist/start.js')], {
    env: { ...process.env, ...stackEnv },
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  closeSync(fd);
  const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })));
  try {
    // More time than a suite's own stack gets: every suite of the worker waits for this one.
    const baseUrl = await stackReady(() => tail(log, 0), exited, 120_000);
    // The worker's, not the suite's: nothing of it keeps a test file or the worker running (the
    // channel still ends the stack when the worker goes).
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    return { pid: child.pid!, baseUrl, adminToken: adminTokenOf(dataDir), dataDir, env, stackEnv, log };
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    throw error;
  }
}

function readShared(file: string): SharedStack | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SharedStack;
  } catch {
    return undefined;
  }
}

/** Stops a shared stack (SIGTERM; SIGKILL after 30 s), then drops its databases and Redis keys and removes its data dir. */
async function removeShared(shared: SharedStack): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(shared.pid, name);
    } catch {
      // gone meanwhile
    }
  };
  if (alive(shared.pid)) signal('SIGTERM');
  for (let waited = 0; alive(shared.pid); waited += 100) {
    if (waited === 30_000) signal('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await cleanupTestEnvironment(shared.env).catch(() => {});
  rmSync(shared.dataDir, { recursive: true, force: true });
}

/** Whether the process runs: a zombie (exited, its parent gone before reaping it) answers signal 0 too. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** What the log holds past `from`: its last 2 MB. */
function tail(log: string, from: number): string {
  const fd = openSync(log, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(from, size - 2_000_000);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    readSync(fd, buffer, 0, buffer.length, start);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
