import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

/** Whether a listener can take `port` on 127.0.0.1 right now (0: any port; resolves the one it got). */
function listenable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: taken } = server.address() as net.AddressInfo;
      server.close(() => resolve(taken));
    });
  });
}

/** Whether nothing listens on `port` of 127.0.0.1 right now. */
export const portIsFree = async (port: number): Promise<boolean> => (await listenable(port)) !== undefined;

/** Where the system's ports for outgoing connections begin (Linux's ip_local_port_range; 32768 elsewhere). */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 21_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, below the range the system hands
 * out for outgoing connections: a port from that range, free when asked, can be taken by any
 * connection a moment later and stay taken (a listener started on it then fails for good).
 */
export async function freePort(): Promise<number> {
  const below = ephemeralStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await listenable(20_000 + Math.floor(Math.random() * (below - 20_000)));
    if (port) return port;
  }
  const any = await listenable(0);
  if (!any) throw new Error('no free port on 127.0.0.1');
  return any;
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
