import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { waitFor } from '@quire/datastore';
import { BACKENDS, type StackState } from './layout';

/*
 * A running stack's replicas (QUIRE_REPLICAS), as the scale-out suite and bench drive them:
 * which process serves which address, a rolling restart, and a front that, like a Kubernetes
 * Service, sends only to the gateway replicas that say they are ready.
 */

export const REPLICATED = [...BACKENDS, 'gateway'] as const;
export type Replicated = (typeof REPLICATED)[number];

/** The processes of one service of the stack (testkit's TestStack.servicePids). */
type Processes = { servicePids(service: string): number[] };

/** The HTTP address of each replica of `service`, in stack.json's order. */
export const replicaUrls = (state: StackState, service: Replicated): string[] =>
  service === 'gateway' ? state.replicas.gateway.map((replica) => replica.url) : state.replicas[service].map((replica) => replica.httpUrl);

/** The port a service process listens on (its HTTP_PORT, or PORT for the gateway): which replica it is. */
export function portOf(pid: number): number | undefined {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const entry = env.find((line) => line.startsWith('HTTP_PORT=')) ?? env.find((line) => line.startsWith('PORT='));
    return entry ? Number(entry.split('=')[1]) : undefined;
  } catch {
    return undefined; // it ended while we looked
  }
}

/** The process serving the replica at `url`, if one runs. */
export const replicaPid = (stack: Processes, service: Replicated, url: string): number | undefined =>
  stack.servicePids(service).find((pid) => portOf(pid) === Number(new URL(url).port));

/**
 * Which of `pids` holds the TCP connection whose local port is `port` (the remote port a server
 * of the test saw): the socket's inode in /proc/net/tcp, then the process with that socket open.
 */
export function pidHoldingConnection(pids: readonly number[], port: number): number | undefined {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set(
    ['tcp', 'tcp6'].flatMap((table) => {
      try {
        return readFileSync(`/proc/net/${table}`, 'utf8')
          .split('\n')
          .slice(1)
          .map((line) => line.trim().split(/\s+/))
          .filter((fields) => fields[1]?.endsWith(hexPort))
          .map((fields) => `socket:[${fields[9]}]`);
      } catch {
        return [];
      }
    }),
  );
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          return false; // closed while we looked
        }
      });
    } catch {
      return false; // it ended while we looked
    }
  });
}

/** True when the process at `url` answers its /readyz with 200 within a second. */
export const isReady = (url: string): Promise<boolean> =>
  fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then(
    (response) => response.ok,
    () => false,
  );

/**
 * Restarts every replica of every service, one after another: SIGTERM (the supervisor starts
 * another process), and the next once a new process serves that replica's address and is ready.
 * The time each took.
 */
export async function restartEachReplica(stack: Processes, state: StackState): Promise<Array<{ unit: string; ms: number }>> {
  const took: Array<{ unit: string; ms: number }> = [];
  for (const service of REPLICATED) {
    for (const [replica, url] of replicaUrls(state, service).entries()) {
      const pid = replicaPid(stack, service, url);
      if (!pid) throw new Error(`no process of ${service} listens at ${url}`);
      const started = performance.now();
      process.kill(pid, 'SIGTERM');
      await waitFor(`${service} at ${url} to be back`, async () => (replicaPid(stack, service, url) ?? pid) !== pid && (await isReady(url)), 30_000);
      took.push({ unit: `${service} ${replica + 1}`, ms: performance.now() - started });
    }
  }
  return took;
}

/**
 * The gateway replicas a client may use, as a Kubernetes Service in front of them has it: those
 * whose /readyz answered 200 when last asked (every `pollMs`), round robin; all of them when none did.
 */
export function readyFront(urls: readonly string[], pollMs = 200): { next(): string; stop(): Promise<void> } {
  const ready = new Set(urls);
  let polling = true;
  const poller = (async () => {
    while (polling) {
      await Promise.all(urls.map(async (url) => ((await isReady(url)) ? ready.add(url) : ready.delete(url))));
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  })();
  let turn = 0;
  return {
    next() {
      const usable = urls.filter((url) => ready.has(url));
      const pool = usable.length > 0 ? usable : urls;
      return pool[turn++ % pool.length];
    },
    async stop() {
      polling = false;
      await poller;
    },
  };
}
