import Redis from 'ioredis';
import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import { counterOf, gaugeOf, inSpan, traceCarrier, type Logger, type MetricsRegistry } from '@quire/runtime';
import { FairQueue, type Fairness } from './fairness';

export interface JobState<Result = unknown> {
  id: string;
  state: 'waiting' | 'active' | 'delayed' | 'completed' | 'failed' | 'prioritized' | 'waiting-children' | 'unknown';
  attemptsMade: number;
  progress: unknown;
  result?: Result;
  failedReason?: string;
  createdAt: string;
  finishedAt?: string;
}

export interface WorkOptions {
  /** Jobs this worker runs at once. */
  concurrency?: number;
  /**
   * A fair queue's cap: jobs of one tenant running at once over every worker of the queue (every
   * replica); 0 or absent: no cap. Give every worker of a queue the same cap.
   */
  maxActivePerTenant?: number;
}

export interface JobQueue<Data, Result> {
  /**
   * Enqueues a job; a given `jobId` is enqueued at most once while it exists. On a fair queue
   * the job's priority is its tenant's turn (a `priority` given here is ignored).
   */
  add(data: Data, options?: JobsOptions): Promise<string>;
  /** Starts processing in this process. */
  work(processor: (job: Job<Data, Result>) => Promise<Result>, options?: WorkOptions): Worker<Data, Result>;
  state(jobId: string): Promise<JobState<Result> | undefined>;
  close(): Promise<void>;
}

/** The field of a job's data that carries the trace context of the work that queued it (W3C trace context; absent when nothing is traced). */
const TRACE_FIELD = '_trace';

/** How often a worker forgets the ids its queue lost from the tenants' turns (fairness.ts, sweep). */
const SWEEP_INTERVAL_MS = 5 * 60_000;

/** How a queue's workers hold their jobs: the backend config's JOB_LOCK_MS and JOB_STALLED_CHECK_MS, 30 s each when unset (BullMQ's defaults). */
export interface JobTimings {
  /**
   * How long a running job, and its tenant's slot on a fair queue, stay claimed by a worker that
   * stopped renewing them (a crashed process); a parked job of a fair queue waits twice that.
   */
  lockMs?: number;
  /** How often workers look for jobs whose lock ran out, to run them again. */
  stalledCheckMs?: number;
}

const DEFAULT_JOB_LOCK_MS = 30_000;
const DEFAULT_STALLED_CHECK_MS = 30_000;

/** The job lock of a service's queues (JOB_LOCK_MS), for what must expire along with it. */
export const jobLockMs = (config: QueueHost['config']): number => config.JOB_LOCK_MS ?? DEFAULT_JOB_LOCK_MS;

/**
 * A BullMQ queue under the deployment's Redis prefix, retried with exponential backoff
 * by default and keeping finished jobs long enough for status endpoints to report them.
 * With `fairness`, jobs of different tenants take turns (see fairness.ts).
 */
export function createJobQueue<Data, Result = unknown>(
  name: string,
  options: {
    redisUrl: string;
    prefix: string;
    logger: Logger;
    defaultJobOptions?: JobsOptions;
    fairness?: Fairness<Data>;
    /**
     * Where to count the jobs this process's workers finished (quire_jobs_total, by queue and
     * outcome) and report the queue's jobs at each scrape (quire_queue_jobs by state,
     * quire_queue_oldest_waiting_age_seconds).
     */
    metrics?: MetricsRegistry;
  } & JobTimings,
): JobQueue<Data, Result> {
  // BullMQ's blocking commands need maxRetriesPerRequest null; it must not use a keyPrefix.
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const prefix = `${options.prefix}bull`;
  const queueConnection = connection();
  const queue = new Queue<Data, Result>(name, {
    connection: queueConnection,
    prefix,
    defaultJobOptions: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
      removeOnFail: { age: 30 * 24 * 3600 },
      ...options.defaultJobOptions,
    },
  });
  const workers: Array<{ worker: Worker<Data, Result>; redis: Redis }> = [];
  const timers: NodeJS.Timeout[] = [];
  const lockMs = options.lockMs ?? DEFAULT_JOB_LOCK_MS;
  const finished =
    options.metrics &&
    counterOf(options.metrics, {
      name: 'quire_jobs_total',
      help: "Jobs this process's workers finished, by queue and outcome (a failed attempt counts as failed)",
      labelNames: ['queue', 'outcome'] as const,
    });
  const messaging = { 'messaging.system': 'bullmq', 'messaging.destination.name': name };
  const fair = options.fairness && new FairQueue(queue, queueConnection, `${options.prefix}fair:${name}:`, options.fairness, options.logger, lockMs);
  const stopReporting = options.metrics && reportQueue(options.metrics, name, queue, fair);

  return {
    add(data, jobOptions = {}) {
      // The job carries the trace of the work that queued it: its processing continues that trace.
      return inSpan(`send ${name}`, { kind: 'producer', attributes: { ...messaging, 'messaging.operation.type': 'send' } }, async (span) => {
        const carrier = traceCarrier();
        const traced = (carrier ? { ...data, [TRACE_FIELD]: carrier } : data) as Data;
        const id = fair ? await fair.add(traced, jobOptions) : (await queue.add(name as never, traced as never, jobOptions)).id!;
        span.setAttribute('messaging.message.id', id);
        return id;
      });
    },
    work(processor, workOptions = {}) {
      const redis = connection();
      const traced = (job: Job<Data, Result>) =>
        inSpan(
          `process ${name}`,
          {
            kind: 'consumer',
            parent: (job.data as { [TRACE_FIELD]?: Record<string, string> } | undefined)?.[TRACE_FIELD],
            attributes: {
              ...messaging,
              'messaging.operation.type': 'process',
              'messaging.message.id': job.id ?? '',
              'quire.job.attempt': job.attemptsMade + 1,
            },
          },
          () => processor(job),
        );
      const run = fair ? fair.processor(traced, workOptions.maxActivePerTenant ?? 0) : traced;
      const worker = new Worker<Data, Result>(name, run, {
        connection: redis,
        prefix,
        concurrency: workOptions.concurrency ?? 1,
        lockDuration: lockMs,
        stalledInterval: options.stalledCheckMs ?? DEFAULT_STALLED_CHECK_MS,
      });
      worker.on('completed', () => finished?.inc({ queue: name, outcome: 'completed' }));
      worker.on('failed', (job, error) => {
        finished?.inc({ queue: name, outcome: 'failed' });
        options.logger.warn({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, err: error.message }, 'job failed');
      });
      worker.on('error', (error) => options.logger.warn({ queue: name, err: error.message }, 'worker error'));
      workers.push({ worker, redis });
      if (fair && workers.length === 1) {
        void fair.sweep();
        const timer = setInterval(() => void fair.sweep(), SWEEP_INTERVAL_MS);
        timer.unref();
        timers.push(timer);
      }
      return worker;
    },
    async state(jobId) {
      // The state first, then the job: BullMQ finishes a job (result, finishedOn, the completed or
      // failed set) in one atomic step, so a job read after a finished state carries its result.
      // A job that finished between the two reads is reported as finished.
      const first = await queue.getJob(jobId);
      if (!first) return undefined;
      let state = (await first.getState()) as JobState['state'];
      const job = (await queue.getJob(jobId)) ?? first;
      if (job.finishedOn && state !== 'completed' && state !== 'failed') state = job.failedReason ? 'failed' : 'completed';
      return {
        id: job.id!,
        state,
        attemptsMade: job.attemptsMade,
        progress: job.progress,
        result: job.returnvalue ?? undefined,
        failedReason: job.failedReason || undefined,
        createdAt: new Date(job.timestamp).toISOString(),
        finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
      };
    },
    async close() {
      stopReporting?.();
      for (const timer of timers) clearInterval(timer);
      await Promise.all(workers.map(({ worker }) => worker.close()));
      await queue.close();
      for (const { redis } of workers) redis.disconnect();
      queueConnection.disconnect();
    },
  };
}

/** The states of a queue's jobs quire_queue_jobs reports. */
const REPORTED_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'] as const;

/**
 * Reports a queue's jobs in `registry`, read at each scrape: how many are in each state, and how
 * long the oldest waiting one has waited since it was queued (0 when none waits). On a fair
 * queue every job waits for its tenant's turn as a BullMQ priority: those are its waiting jobs
 * (its prioritized ones then stay 0; a parked job is delayed). Returns what stops the reports.
 */
function reportQueue<Data, Result>(registry: MetricsRegistry, name: string, queue: Queue<Data, Result>, fair?: FairQueue<Data, Result>): () => void {
  const stopCounts = gaugeOf(
    registry,
    {
      name: 'quire_queue_jobs',
      help: "Jobs of a queue, by state (a fair queue's jobs waiting for their turn count as waiting)",
      labelNames: ['queue', 'state'] as const,
    },
    async () => {
      const counts = await queue.getJobCounts(...REPORTED_STATES);
      if (fair) {
        counts.waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
        counts.prioritized = 0;
      }
      return REPORTED_STATES.map((state) => ({ labels: { queue: name, state }, value: counts[state] ?? 0 }));
    },
  );
  const stopAge = gaugeOf(
    registry,
    {
      name: 'quire_queue_oldest_waiting_age_seconds',
      help: 'Seconds since the oldest waiting job of a queue was queued (0: none waits)',
      labelNames: ['queue'] as const,
    },
    async () => {
      const [first] = await queue.getJobs(['wait'], 0, 0, true);
      const since = [first?.timestamp, fair && (await fair.oldestWaitingSince())].filter((at): at is number => typeof at === 'number');
      const age = since.length ? Math.max(0, (Date.now() - Math.min(...since)) / 1000) : 0;
      return [{ labels: { queue: name }, value: age }];
    },
  );
  return () => {
    stopCounts();
    stopAge();
  };
}

/** What a service instance gives its queues: its Redis, the deployment's key prefix, how its workers hold jobs, its logger. */
export interface QueueHost {
  config: { REDIS_URL: string; REDIS_PREFIX: string; JOB_LOCK_MS?: number; JOB_STALLED_CHECK_MS?: number };
  logger: Logger;
  /** The instance's metrics registry: its workers count the jobs they finish there. */
  metrics?: MetricsRegistry;
}

export interface QueuePerInstance<Data, Result> {
  /** The instance's queue, made on first use. */
  of(host: QueueHost): JobQueue<Data, Result>;
  /** Closes the instance's queue (its workers included), if it was made; the next `of` makes a new one. */
  close(host: QueueHost): Promise<void>;
}

/**
 * The one way a service declares a queue: one per service instance (its context), so two
 * instances in one process (the tests') never share a connection, made on first use. A queue
 * of tenants' work (organizations') is declared with `fairness`: their jobs take turns, and
 * each worker gives the cap of one tenant's jobs at once (WorkOptions.maxActivePerTenant).
 */
export function queuePerInstance<Data, Result = unknown>(
  name: string,
  defaultJobOptions?: JobsOptions,
  fairness?: Fairness<Data>,
): QueuePerInstance<Data, Result> {
  const queues = new WeakMap<QueueHost, JobQueue<Data, Result>>();
  return {
    of(host) {
      let queue = queues.get(host);
      if (!queue) {
        queue = createJobQueue<Data, Result>(name, {
          redisUrl: host.config.REDIS_URL,
          prefix: host.config.REDIS_PREFIX,
          lockMs: host.config.JOB_LOCK_MS,
          stalledCheckMs: host.config.JOB_STALLED_CHECK_MS,
          logger: host.logger,
          metrics: host.metrics,
          defaultJobOptions,
          fairness,
        });
        queues.set(host, queue);
      }
      return queue;
    },
    async close(host) {
      const queue = queues.get(host);
      queues.delete(host);
      await queue?.close();
    },
  };
}
