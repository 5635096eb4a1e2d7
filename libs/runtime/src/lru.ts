import { LRUCache } from 'lru-cache';

/**
 * A least-recently-used cache bounded by a total weight (estimated bytes of heap), counting its
 * hits and misses for the metrics, and sharing the loads under way by key. A service's caches
 * are declared by their modules and made once per service instance by startBackendService
 * (caches.ts), so two instances in one process never share one. Values are never undefined or
 * null (undefined is a miss).
 */
export class LruCache<V extends NonNullable<unknown>> {
  /** The budget: entries are dropped, least recently used first, past it. */
  readonly maxWeight: number;
  hits = 0;
  misses = 0;
  private readonly entries: LRUCache<string, V>;
  private readonly loads = new Map<string, Promise<V>>();

  constructor(maxWeight: number) {
    this.maxWeight = Math.max(1, Math.floor(maxWeight));
    this.entries = new LRUCache<string, V>({ maxSize: this.maxWeight });
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) this.misses++;
    else this.hits++;
    return value;
  }

  /** Keeps `value` under `key`; one weighing more than the whole budget is not kept. */
  set(key: string, value: V, weight: number): void {
    this.entries.set(key, value, { size: Math.max(1, Math.ceil(weight)) });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** The weight held (at most `maxWeight`). */
  get weight(): number {
    return this.entries.calculatedSize;
  }

  /**
   * The load of `key` under way, else the one `load` starts: concurrent callers of one key share
   * it. `load` keeps what it made itself (with its weight); a failed load is not remembered.
   */
  shared(key: string, load: () => Promise<V>): Promise<V> {
    let loading = this.loads.get(key);
    if (!loading) {
      loading = load().finally(() => this.loads.delete(key));
      this.loads.set(key, loading);
    }
    return loading;
  }

  /** The shared load of `key` under way, if any. */
  loading(key: string): Promise<V> | undefined {
    return this.loads.get(key);
  }
}

/**
 * `compute` with the results for its last `max` inputs kept: for a pure function of a string
 * that is asked the same inputs often (an origin, a digest) on a hot path.
 */
export function remembered<V extends NonNullable<unknown>>(max: number, compute: (input: string) => V): (input: string) => V {
  const kept = new LruCache<V>(max);
  return (input) => {
    let value = kept.get(input);
    if (value === undefined) {
      value = compute(input);
      kept.set(input, value, 1);
    }
    return value;
  };
}
