import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The monorepo root: the nearest ancestor holding turbo.json. */
export function repoRoot(from = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'turbo.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no monorepo root above ${from}`);
    dir = parent;
  }
  return dir;
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it resolves true, or throws after `timeoutMs`. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, command);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The binary of a tool the project builds with Go (scripts/install-<name>.sh): the clone's
 * .tools/bin/<name>, else one on PATH, else built now when Go is there (first run only).
 */
export function findGoTool(name: string, log: (line: string) => void): string | undefined {
  const local = path.join(repoRoot(), '.tools', 'bin', name);
  if (existsSync(local)) return local;
  const onSystem = onPath(name);
  if (onSystem) return onSystem;
  if (!onPath('go')) return undefined;
  log(`building ${name} with Go (first run only)…`);
  const out = execFileSync('bash', [path.join(repoRoot(), 'scripts', `install-${name}.sh`)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').pop();
}

/** Spawns a helper process whose output is kept in memory for error reports. */
export function spawnChild(command: string, args: string[], options: SpawnOptions = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

export function stopChild(child: ChildProcess, timeoutMs = 5_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

export interface SupervisedChild {
  /** The process running now (it changes after a restart). */
  current(): ChildProcess;
  /** Stops it for good (no restart). */
  stop(): Promise<void>;
  /** Lets this process exit while the child runs; the child is killed when this process exits. */
  detach(): void;
}

/**
 * Keeps a helper process (the datastore, Redis) running: when it exits without being asked
 * to, it is started again after a short backoff (250 ms doubling up to 5 s, reset once it has
 * stayed up for a minute). It never gives up: while it is down the services answer 503.
 * `stopSignal` is what asks it to stop (PostgreSQL wants SIGINT for a fast shutdown: SIGTERM
 * would wait for every client to disconnect).
 */
export function superviseChild(
  name: string,
  first: { child: ChildProcess; output: () => string },
  restart: () => { child: ChildProcess; output: () => string },
  log: (line: string) => void,
  stopSignal: NodeJS.Signals = 'SIGTERM',
): SupervisedChild {
  let running = first;
  let stopped = false;
  let detached = false;
  let failures = 0;
  let startedAt = Date.now();
  const watch = () => {
    const watched = running;
    watched.child.once('exit', (code, signal) => {
      if (stopped) return;
      if (Date.now() - startedAt > 60_000) failures = 0;
      const delay = Math.min(250 * 2 ** failures, 5_000);
      failures++;
      log(`${name} exited (${signal ?? code}); restarting in ${delay} ms`);
      setTimeout(() => {
        if (stopped) return;
        running = restart();
        startedAt = Date.now();
        if (detached) unref(running.child);
        watch();
      }, delay).unref?.();
    });
  };
  watch();
  const killOnExit = () => running.child.kill(stopSignal);
  return {
    current: () => running.child,
    stop: async () => {
      stopped = true;
      process.removeListener('exit', killOnExit);
      await stopChild(running.child, 5_000, stopSignal);
    },
    detach() {
      detached = true;
      unref(running.child);
      process.once('exit', killOnExit);
    },
  };
}

function unref(child: ChildProcess): void {
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
}
