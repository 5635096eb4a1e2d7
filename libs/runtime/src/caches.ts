import { Counter, Gauge, type Registry } from 'prom-client';
import { LruCache } from './lru';

/*
 * A service's in-process caches: each module declares the caches it keeps (their value types and
 * sizes), the service's composition root gathers the declarations, and startBackendService makes
 * them once per service instance and hands them to the domain as `ctx.caches.<name>`. Nothing is
 * kept at module level, so two instances in one process (the tests) share nothing, and every cache
 * is bounded by one budget per service (CACHE_BUDGET_MB) and reported in the service's metrics.
 */

/** A cache a module keeps: its value type, and its size when the service's budget is the default. */
export interface CacheDeclaration<V extends NonNullable<unknown>> {
  /**
   * Its share of the service's budget, as its size in MB under the default budget (the sum of the
   * service's declared sizes); CACHE_BUDGET_MB scales every share alike.
   */
  readonly megabytes: number;
  /** Never set: carries the value type to the cache startBackendService makes. */
  readonly valueType?: V;
}

export function declareCache<V extends NonNullable<unknown>>(megabytes: number): CacheDeclaration<V> {
  return { megabytes };
}

/** A service's cache declarations, by name. */
// The value types differ from one cache to the next: the table's own type takes them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CacheDeclarations = Record<string, CacheDeclaration<any>>;

/** The caches made from `D`, by name (what `ctx.caches` is). */
export type Caches<D extends CacheDeclarations> = { readonly [K in keyof D]: D[K] extends CacheDeclaration<infer V> ? LruCache<V> : never };

const MB = 1024 * 1024;

/**
 * Makes the declared caches of one service instance: `budgetMb` (default: the sum of the
 * declared sizes) is split in proportion to the declared sizes. With a `registry`, each cache is
 * reported there under its name (label `cache`): entries, fill and budget in bytes, hits and misses.
 */
export function createCaches<D extends CacheDeclarations>(declarations: D, options: { budgetMb?: number; registry?: Registry } = {}): Caches<D> {
  const declared = Object.entries(declarations);
  const total = declared.reduce((sum, [, declaration]) => sum + declaration.megabytes, 0);
  const scale = options.budgetMb === undefined || total === 0 ? 1 : options.budgetMb / total;
  const caches = Object.fromEntries(declared.map(([name, declaration]) => [name, new LruCache(declaration.megabytes * scale * MB)])) as Record<
    string,
    LruCache<NonNullable<unknown>>
  >;
  if (options.registry && declared.length > 0) reportCaches(options.registry, caches);
  return caches as Caches<D>;
}

function reportCaches(registry: Registry, caches: Record<string, LruCache<NonNullable<unknown>>>): void {
  const each = Object.entries(caches);
  const gauge = (name: string, help: string, read: (cache: LruCache<NonNullable<unknown>>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['cache'] as const,
      registers: [registry],
      collect() {
        for (const [cache, lru] of each) this.set({ cache }, read(lru));
      },
    });
  // Counted by the caches themselves; read at each scrape.
  const counter = (name: string, help: string, read: (cache: LruCache<NonNullable<unknown>>) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['cache'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [cache, lru] of each) this.inc({ cache }, read(lru));
      },
    });
  gauge('quire_cache_entries', 'Entries held by an in-process cache', (lru) => lru.size);
  gauge('quire_cache_fill_bytes', 'Estimated heap bytes held by an in-process cache', (lru) => lru.weight);
  gauge('quire_cache_budget_bytes', "An in-process cache's budget, its share of CACHE_BUDGET_MB", (lru) => lru.maxWeight);
  counter('quire_cache_hits_total', 'Lookups an in-process cache answered', (lru) => lru.hits);
  counter('quire_cache_misses_total', 'Lookups an in-process cache did not hold', (lru) => lru.misses);
}
