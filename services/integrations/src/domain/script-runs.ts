import { counterOf, histogramOf, inSpan, markSpanFailed } from '@quire/runtime';
import { Semaphore } from 'redis-semaphore';
import { DEFAULT_LIMITS, runOutcome, ScriptPool, ScriptPoolBusyError, type RunOutcome, type RunResult, type ScriptRequest } from '../runtime';
import type { IntegrationsContext } from './context';
import { egressFetch, egressPolicyOf } from './egress-fetch';

/*
 * Every run of an integration's script (deliveries, site_view included, and its public
 * endpoint) goes through here: on a worker of this process's pool, within the service's limits
 * and egress rules, and within its tenant's fair share across every replica — at most
 * SCRIPT_CONCURRENCY_PER_INTEGRATION runs of one integration and
 * SCRIPT_CONCURRENCY_PER_ORGANIZATION runs for one organization at once, counted in Redis.
 *
 * A run holds one slot of each (redis-semaphore: a sorted set of holders, each one expiring
 * SLOT_TTL_MS after its last refresh, so the slots of a process that died come back).
 */

/** Time one `fetch` of a script has. */
const SCRIPT_FETCH_TIMEOUT_MS = 10_000;
/** A slot expires this long after its holder's last refresh (every 0.8 of it) — a dead process's slots come back then. */
const SLOT_TTL_MS = 10_000;
/** Pause between two tries for a busy slot. */
const SLOT_RETRY_MS = 100;

/** Whose share a run counts against. */
export interface ScriptRunOwner {
  integrationName: string;
  /** The organization the run is for: the installing one for an event, the integration's owner for its public endpoint. */
  organizationId: string;
}

/** The run did not start: a limit of the tenant's share, or every worker busy. The caller answers 429/503 or retries later. */
export class ScriptRunBusyError extends Error {
  constructor(
    message: string,
    /** Whose limit: the integration's or the organization's (429), or the whole service's (503). */
    readonly scope: 'integration' | 'organization' | 'service',
  ) {
    super(message);
    this.name = 'ScriptRunBusyError';
  }
}

const pools = new WeakMap<IntegrationsContext, ScriptPool>();

/** How a run ended (runOutcome), or `busy`: it did not start (ScriptRunBusyError). */
type ScriptRunOutcome = RunOutcome | 'busy';

/** Counts a run of this process by how it ended, with its duration and CPU time when it ran. */
function countRun(ctx: IntegrationsContext, outcome: ScriptRunOutcome, result?: RunResult): void {
  counterOf(ctx.metrics, {
    name: 'quire_script_runs_total',
    help: 'Integration script runs of this process, by outcome: ok (it answered, whatever its status), error, timeout, memory, or busy (not started)',
    labelNames: ['outcome'] as const,
  }).inc({ outcome });
  if (!result) return;
  histogramOf(ctx.metrics, {
    name: 'quire_script_run_duration_seconds',
    help: 'Wall-clock duration of the integration script runs of this process, by outcome',
    labelNames: ['outcome'] as const,
  }).observe({ outcome }, result.durationMs / 1000);
  histogramOf(ctx.metrics, {
    name: 'quire_script_run_cpu_seconds',
    help: 'CPU time the integration script runs of this process spent in their sandbox, by outcome',
    labelNames: ['outcome'] as const,
  }).observe({ outcome }, result.cpuMs / 1000);
}

function poolOf(ctx: IntegrationsContext): ScriptPool {
  let pool = pools.get(ctx);
  if (!pool) {
    const { config } = ctx;
    pool = new ScriptPool({ threads: config.SCRIPT_WORKERS, heapMb: config.SCRIPT_WORKER_HEAP_MB, maxQueue: config.SCRIPT_QUEUE_MAX });
    pools.set(ctx, pool);
  }
  return pool;
}

/** Stops this process's script workers (service shutdown). */
export async function closeScriptRuns(ctx: IntegrationsContext): Promise<void> {
  const pool = pools.get(ctx);
  pools.delete(ctx);
  await pool?.close();
}

/** The thread ids of this process's script workers (tests). */
export const scriptWorkerIds = (ctx: IntegrationsContext) => poolOf(ctx).threadIds();

/**
 * Takes a slot of `key`'s semaphore: one try when `waitMs` is 0, else tries until `waitMs` is
 * over. Resolves to the held semaphore, or undefined when none was free.
 */
async function takeSlot(ctx: IntegrationsContext, key: string, limit: number, waitMs: number): Promise<Semaphore | undefined> {
  const semaphore = new Semaphore(ctx.redis, key, limit, {
    lockTimeout: SLOT_TTL_MS,
    acquireTimeout: Math.max(waitMs, SLOT_RETRY_MS),
    acquireAttemptsLimit: waitMs === 0 ? 1 : Number.POSITIVE_INFINITY,
    retryInterval: SLOT_RETRY_MS,
    // Refreshing failed (Redis away longer than the TTL): the run goes on, the count may overshoot meanwhile.
    onLockLost: (error) => ctx.logger.warn({ err: error.message, key }, 'a script run lost its slot'),
  });
  return (await semaphore.tryAcquire()) ? semaphore : undefined;
}

/**
 * Runs the integration's published script on one request, on a worker, within the owner's share
 * (waiting up to `waitForSlotMs` for a slot: 0 answers at once). Throws ScriptRunBusyError when
 * it could not start; anything the script does ends as a RunResult with its error.
 */
export async function runIntegrationScript(
  ctx: IntegrationsContext,
  script: string,
  request: ScriptRequest,
  owner: ScriptRunOwner,
  options: { waitForSlotMs: number },
): Promise<RunResult> {
  const { config } = ctx;
  // The integration's share, then the organization's: taken in that order, given back in reverse.
  const shares = [
    { scope: 'integration' as const, key: `script-runs:integration:${owner.integrationName}`, limit: config.SCRIPT_CONCURRENCY_PER_INTEGRATION },
    { scope: 'organization' as const, key: `script-runs:organization:${owner.organizationId}`, limit: config.SCRIPT_CONCURRENCY_PER_ORGANIZATION },
  ];
  const held: Semaphore[] = [];
  try {
    for (const { scope, key, limit } of shares) {
      const slot = await takeSlot(ctx, key, limit, options.waitForSlotMs);
      if (!slot) throw new ScriptRunBusyError(`The ${scope} already has ${limit} script runs in progress`, scope);
      held.push(slot);
    }
    const cpuTimeMs = config.SCRIPT_TIMEOUT_MS;
    // A span of the run, named by whom it runs for (never the script's input, output or logs).
    const attributes = { 'quire.integration.name': owner.integrationName, 'quire.organization.id': owner.organizationId };
    return await inSpan('script run', { attributes }, async (span) => {
      const result = await poolOf(ctx).run({
        script,
        request,
        limits: {
          memoryBytes: config.SCRIPT_MEMORY_LIMIT_MB * 1024 * 1024,
          cpuTimeMs,
          wallTimeMs: Math.max(DEFAULT_LIMITS.wallTimeMs, cpuTimeMs * 2),
        },
        hostFetch: egressFetch(egressPolicyOf(config), { timeoutMs: SCRIPT_FETCH_TIMEOUT_MS, maxResponseBytes: DEFAULT_LIMITS.maxBodyBytes }),
      });
      span.setAttributes({
        'quire.script.cpu_ms': result.cpuMs,
        'quire.script.duration_ms': result.durationMs,
        'quire.script.status': result.response?.status ?? 0,
      });
      if (result.error) markSpanFailed(span, 'the script failed');
      countRun(ctx, runOutcome(result), result);
      return result;
    });
  } catch (error) {
    if (error instanceof ScriptRunBusyError || error instanceof ScriptPoolBusyError) countRun(ctx, 'busy');
    if (error instanceof ScriptPoolBusyError) throw new ScriptRunBusyError('Every script worker is busy', 'service');
    throw error;
  } finally {
    for (const slot of held.reverse()) {
      await slot.release().catch((error: Error) => ctx.logger.warn({ err: error.message }, 'could not free a script run slot'));
    }
  }
}
