import type { Logger } from '@quire/runtime';

/**
 * One service's HTTP replicas as the gateway sends to them: round robin over those not known
 * to be unusable. A replica is unusable for a second after a connection to it failed, and while
 * it answers its /readyz with anything but 200 (a draining replica does: runService), asked every
 * `pollMs` when there are several. With none usable, requests still go round robin (and get the
 * service's own answer, or the gateway's 503).
 */
export interface Replicas {
  readonly urls: readonly string[];
  /** The next replica to send to; another than `avoid` when there is one. */
  pick(avoid?: string): string;
  /** A connection to `url` failed: skipped for a second. */
  markDown(url: string): void;
  close(): void;
}

export function watchReplicas(service: string, urls: readonly string[], logger: Logger, options: { pollMs?: number; downMs?: number } = {}): Replicas {
  const { pollMs = 500, downMs = 1_000 } = options;
  let turn = 0;
  const downUntil = new Map<string, number>();
  const notReady = new Set<string>();
  const usable = (url: string) => !notReady.has(url) && (downUntil.get(url) ?? 0) <= Date.now();

  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    await Promise.all(
      urls.map(async (url) => {
        const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(Math.max(pollMs, 250)) }).then(
          (response) => response.ok,
          () => false,
        );
        if (ready === notReady.has(url)) logger.info({ service, replica: url, ready }, ready ? 'replica is ready' : 'replica is not ready: skipped');
        if (ready) notReady.delete(url);
        else notReady.add(url);
      }),
    ).finally(() => (polling = false));
  };
  // One replica: nothing to choose between, nothing to ask.
  const timer = urls.length > 1 ? setInterval(() => void poll(), pollMs).unref() : undefined;

  return {
    urls,
    pick(avoid) {
      for (let i = 0; i < urls.length; i++) {
        const url = urls[turn++ % urls.length];
        if (url !== avoid && usable(url)) return url;
      }
      const others = urls.filter((url) => url !== avoid);
      return (others.length > 0 ? others : urls)[turn++ % (others.length || urls.length)];
    },
    markDown(url) {
      downUntil.set(url, Date.now() + downMs);
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
