import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { DelayedError, type Job, type JobsOptions, type Queue } from 'bullmq';
import type { Logger } from '@quire/runtime';

/*
 * Fairness between tenants (organizations) on one BullMQ queue, without BullMQ Pro's groups.
 *
 * Turns. A job is added with a BullMQ priority of 1 + the number of its tenant's jobs already
 * waiting (kept exactly in Redis: a sorted set of the tenant's waiting job ids per queue, added
 * to when a job is queued, removed from when it starts; a job id already queued adds nothing).
 * BullMQ starts the lowest priority number first, in arrival order among equals, so a tenant's
 * n-th waiting job runs after every other tenant's first to (n-1)-th: one tenant's burst of
 * thousands waits behind another's single job instead of in front of it. A job never gets a
 * smaller number than the largest its tenant already waits with, so a tenant's own jobs keep
 * their order. Numbers stay small: they start again at 1 whenever the tenant has nothing
 * waiting (BullMQ allows up to 2^21 - 1; larger backlogs share that last number), and BullMQ
 * keeps prioritized jobs in a sorted set (O(log n) to add and to take).
 *
 * Cap. At most `maxActive` jobs of one tenant run at once over every worker of the queue (every
 * replica). A job over the cap is parked: moved to BullMQ's delayed set (the documented
 * `job.moveToDelayed` + `DelayedError` pattern; it costs no attempt) and registered in its
 * tenant's parked set. When a running job of the tenant ends, the oldest parked one is
 * promoted: parked jobs come back one per freed slot instead of polling the queue. A job is
 * delayed before it is registered, and registering it checks for a free slot in the same atomic
 * step, so a slot freed in between is not missed. A running job holds its slot by a lease it
 * renews: a crashed worker's slots free themselves, and parked jobs come back after twice the lease
 * even if no promotion reaches them.
 */

/** BullMQ's largest priority number (its lowest priority). */
const PRIORITY_LIMIT = 2 ** 21 - 1;
/**
 * How long a slot of withSlot lives past its holder's last renewal (renewed every third of it).
 * A fair queue's slots live as long as its jobs' lock (JOB_LOCK_MS), and a parked job stays
 * delayed twice that long unless a freed slot promotes it first.
 */
const SLOT_LEASE_MS = 30_000;
/** Per-tenant keys expire this long after their last write (a tenant gone quiet). */
const KEY_TTL_MS = 7 * 24 * 3600 * 1000;

// Lua helpers. slots: a sorted set of holders by lease deadline; parked: job ids by queue time.
const TAKE_SLOT = `
local function takeSlot(slots, holder, limit, now, lease, ttl)
  redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
  if redis.call('ZSCORE', slots, holder) or redis.call('ZCARD', slots) < limit then
    redis.call('ZADD', slots, now + lease, holder)
    redis.call('PEXPIRE', slots, ttl)
    return 1
  end
  return 0
end`;
const WAKE = `
local function wake(slots, parked, limit, now)
  redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
  local free = limit - redis.call('ZCARD', slots)
  local woken = {}
  if free <= 0 then return woken end
  local popped = redis.call('ZPOPMIN', parked, free)
  for i = 1, #popped, 2 do woken[#woken + 1] = popped[i] end
  return woken
end`;

/** KEYS: waiting, tenants, job hash. ARGV: job id, tenant, ttl. The job's priority; 0 when BullMQ already holds the job. */
const ENQUEUE = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local known = redis.call('ZSCORE', KEYS[1], ARGV[1])
if known then return tonumber(known) end
local priority = redis.call('ZCARD', KEYS[1]) + 1
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] and tonumber(last[2]) > priority then priority = tonumber(last[2]) end
if priority > ${PRIORITY_LIMIT} then priority = ${PRIORITY_LIMIT} end
redis.call('ZADD', KEYS[1], priority, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return priority`;

/** KEYS: waiting, parked, slots. ARGV: job id, cap (0: none), now, lease, ttl. 1 when the job may run now. */
const BEGIN = `${TAKE_SLOT}
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if tonumber(ARGV[2]) <= 0 then return 1 end
return takeSlot(KEYS[3], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5])`;

/** KEYS: waiting, parked, slots, tenants. ARGV: job id, priority, queued at, cap, now, tenant, ttl. The parked jobs to promote now. */
const PARK = `${WAKE}
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('SADD', KEYS[4], ARGV[6])
return wake(KEYS[3], KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5]))`;

/** KEYS: slots, parked. ARGV: holder, cap, now. The parked jobs to promote now. */
const RELEASE = `${WAKE}
redis.call('ZREM', KEYS[1], ARGV[1])
return wake(KEYS[1], KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))`;

/** KEYS: slots. ARGV: holder, deadline. Extends a slot still held. */
const RENEW = "return redis.call('ZADD', KEYS[1], 'XX', 'CH', ARGV[2], ARGV[1])";

/** KEYS: slots. ARGV: holder, limit, now, lease, ttl. 1 when taken. */
const ACQUIRE = `${TAKE_SLOT}
return takeSlot(KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5])`;

/**
 * KEYS: BullMQ's prioritized set. ARGV: the most priorities to look at. The id of the job queued
 * first: a job's score is its priority * 2^32 + a counter of the queue's adds, so the first job
 * of each priority is the oldest of that priority, and the oldest of those is the oldest of all.
 */
const OLDEST_PRIORITIZED = `
local oldest, oldestCounter
local from = '-inf'
for _ = 1, tonumber(ARGV[1]) do
  local first = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'LIMIT', 0, 1, 'WITHSCORES')
  if #first == 0 then break end
  local score = tonumber(first[2])
  local counter = score % 4294967296
  if not oldestCounter or counter < oldestCounter then oldest, oldestCounter = first[1], counter end
  from = string.format('%.0f', score - counter + 4294967296)
end
return oldest`;
/**
 * The priorities holding jobs OLDEST_PRIORITIZED looks at, lowest numbers first: a tenant's jobs
 * take rising numbers, so older jobs hold lower ones; past this many, the oldest job found may be
 * younger than the oldest there is.
 */
const PRIORITIES_LOOKED_AT = 1_000;

/** KEYS: waiting, tenants. ARGV: tenant, ids gone from the queue… Forgets them; the tenant too once nothing of it waits. */
const FORGET = `
for i = 2, #ARGV do redis.call('ZREM', KEYS[1], ARGV[i]) end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return 0`;

/** The Redis side of one queue's turns and caps (see above). */
class TenantTurns {
  private readonly tenants: string;

  /**
   * `base`: the key prefix of this queue's fairness state (no client key prefix applies);
   * `queueKeys`: BullMQ's keys of the queue, to tell a waiting job from a lost one.
   */
  constructor(
    private readonly redis: Redis,
    private readonly base: string,
    private readonly queueKeys: { job: (jobId: string) => string; prioritized: string; delayed: string },
    private readonly leaseMs: number,
  ) {
    this.tenants = `${base}tenants`;
  }

  private waiting = (tenant: string) => `${this.base}waiting:${tenant}`;
  private parked = (tenant: string) => `${this.base}parked:${tenant}`;
  private slots = (tenant: string) => `${this.base}active:${tenant}`;

  /** The BullMQ priority of a job about to be added (0: a job of that id exists, BullMQ will ignore the add). */
  async priorityFor(tenant: string, jobId: string): Promise<number> {
    return Number(await this.redis.eval(ENQUEUE, 3, this.waiting(tenant), this.tenants, this.queueKeys.job(jobId), jobId, tenant, KEY_TTL_MS));
  }

  /** Forgets job ids that will not start (their add failed, or they left the queue unstarted). */
  async forget(tenant: string, jobIds: string[]): Promise<void> {
    await this.redis.eval(FORGET, 2, this.waiting(tenant), this.tenants, tenant, ...jobIds);
  }

  /** The job starts: it no longer waits. With a cap, whether it may run now (else it is to be parked). */
  async begin(tenant: string, jobId: string, cap: number): Promise<boolean> {
    const args = [jobId, cap, Date.now(), this.leaseMs, KEY_TTL_MS];
    return (await this.redis.eval(BEGIN, 3, this.waiting(tenant), this.parked(tenant), this.slots(tenant), ...args)) === 1;
  }

  /** Registers a job already moved to the delayed set as parked; returns the parked jobs a free slot lets run now. */
  async park(tenant: string, job: { id: string; priority: number; queuedAt: number }, cap: number): Promise<string[]> {
    const keys = [this.waiting(tenant), this.parked(tenant), this.slots(tenant), this.tenants];
    return (await this.redis.eval(PARK, 4, ...keys, job.id, job.priority, job.queuedAt, cap, Date.now(), tenant, KEY_TTL_MS)) as string[];
  }

  /** The job ended: frees its slot; returns the parked jobs to promote. */
  async release(tenant: string, jobId: string, cap: number): Promise<string[]> {
    return (await this.redis.eval(RELEASE, 2, this.slots(tenant), this.parked(tenant), jobId, cap, Date.now())) as string[];
  }

  /** The parked jobs free slots let run now. */
  wake(tenant: string, cap: number): Promise<string[]> {
    return this.release(tenant, '', cap);
  }

  /** Extends the lease of a running job's slot. */
  async renew(tenant: string, jobId: string): Promise<void> {
    await this.redis.eval(RENEW, 1, this.slots(tenant), jobId, Date.now() + this.leaseMs);
  }

  /**
   * Forgets the waiting and parked ids whose job is neither prioritized nor delayed any more
   * (removed from the queue, or added to the count by an add that then failed): a stale id would
   * lower its tenant's turns for good. Returns how many it forgot.
   */
  async sweep(): Promise<number> {
    let forgotten = 0;
    for (const tenant of await this.redis.smembers(this.tenants)) {
      const waiting = await this.redis.zrange(this.waiting(tenant), '0', '-1');
      const parked = await this.redis.zrange(this.parked(tenant), '0', '-1');
      const check = this.redis.pipeline();
      for (const id of waiting) check.zscore(this.queueKeys.prioritized, id).zscore(this.queueKeys.delayed, id);
      for (const id of parked) check.zscore(this.queueKeys.delayed, id);
      const answers = ((await check.exec()) ?? []).map(([error, value]) => (error ? 'unknown' : value));
      const lost = waiting.filter((_, i) => answers[2 * i] === null && answers[2 * i + 1] === null);
      const lostParked = parked.filter((_, i) => answers[2 * waiting.length + i] === null);
      if (lostParked.length) await this.redis.zrem(this.parked(tenant), ...lostParked);
      await this.forget(tenant, lost);
      forgotten += lost.length + lostParked.length;
    }
    return forgotten;
  }
}

/** A fair queue: jobs of different tenants take turns. */
export interface Fairness<Data> {
  /** The tenant (organization) of a job; jobs without one share a tenant. */
  tenantOf(data: Data): string | undefined;
}

/** Jobs without a tenant share this one. */
const NO_TENANT = '-';

/** The BullMQ side of a fair queue: adds jobs with their tenant's turn, runs them within the tenant's cap. */
export class FairQueue<Data, Result> {
  private readonly turns: TenantTurns;

  /** `redis`: a connection without key prefix; `base`: the key prefix of this queue's fairness state; `leaseMs`: a running job's slot lease. */
  constructor(
    private readonly queue: Queue<Data, Result>,
    private readonly redis: Redis,
    base: string,
    private readonly fairness: Fairness<Data>,
    private readonly logger: Logger,
    private readonly leaseMs: number,
  ) {
    const queueKeys = { job: (jobId: string) => queue.toKey(jobId), prioritized: queue.keys.prioritized, delayed: queue.keys.delayed };
    this.turns = new TenantTurns(redis, base, queueKeys, leaseMs);
  }

  private tenantOf(data: Data): string {
    return this.fairness.tenantOf(data) || NO_TENANT;
  }

  /** Adds a job at its tenant's turn (a `priority` in `options` is replaced). */
  async add(data: Data, options: JobsOptions): Promise<string> {
    // The turn is counted by job id: the id is known before the add.
    const jobId = options.jobId ?? randomUUID();
    const tenant = this.tenantOf(data);
    const priority = await this.turns.priorityFor(tenant, jobId);
    try {
      const job = await this.queue.add(this.queue.name as never, data as never, { ...options, jobId, priority: Math.max(priority, 1) });
      return job.id!;
    } catch (error) {
      if (priority > 0) await this.turns.forget(tenant, [jobId]).catch(() => undefined);
      throw error;
    }
  }

  /** `processor` as a fair queue runs it: the job leaves its tenant's waiting jobs, then runs within the tenant's cap (0: none) or is parked. */
  processor(processor: (job: Job<Data, Result>) => Promise<Result>, cap: number) {
    return async (job: Job<Data, Result>, token?: string): Promise<Result> => {
      const tenant = this.tenantOf(job.data);
      const jobId = job.id!;
      if (!(await this.turns.begin(tenant, jobId, cap))) {
        await job.moveToDelayed(Date.now() + 2 * this.leaseMs, token);
        await this.promote(tenant, await this.turns.park(tenant, { id: jobId, priority: job.priority || 1, queuedAt: job.timestamp }, cap), cap);
        throw new DelayedError();
      }
      if (cap <= 0) return processor(job);
      const renewal = setInterval(() => void this.turns.renew(tenant, jobId).catch(() => undefined), this.leaseMs / 3);
      renewal.unref();
      try {
        return await processor(job);
      } finally {
        clearInterval(renewal);
        try {
          await this.promote(tenant, await this.turns.release(tenant, jobId, cap), cap);
        } catch (error) {
          // The slot frees itself when its lease ends; parked jobs come back after twice the lease.
          this.logger.warn({ queue: this.queue.name, jobId, err: (error as Error).message }, 'could not hand on a fair queue slot');
        }
      }
    };
  }

  /** Promotes parked jobs that freed slots let run; a job gone meanwhile hands its slot on. */
  private async promote(tenant: string, jobIds: string[], cap: number): Promise<void> {
    for (let round = 0; jobIds.length > 0 && round < 3; round++) {
      let gone = 0;
      for (const jobId of jobIds) {
        const job = await this.queue.getJob(jobId);
        if (!job) gone += 1;
        // Not delayed any more: it came back on its own (twice the lease) and waits for its turn already.
        else await job.promote().catch(() => undefined);
      }
      jobIds = gone ? await this.turns.wake(tenant, cap) : [];
    }
  }

  /**
   * When the job that has waited longest for its turn was queued (epoch ms); undefined when none
   * waits. Jobs waiting for their turn are BullMQ's prioritized ones (a parked job is delayed).
   */
  async oldestWaitingSince(): Promise<number | undefined> {
    const jobId = (await this.redis.eval(OLDEST_PRIORITIZED, 1, this.queue.keys.prioritized, PRIORITIES_LOOKED_AT)) as string | null;
    const queuedAt = jobId ? await this.redis.hget(this.queue.toKey(jobId), 'timestamp') : null;
    return queuedAt ? Number(queuedAt) : undefined;
  }

  /** Forgets the ids the queue lost from the tenants' turns (see TenantTurns.sweep); never throws. */
  async sweep(): Promise<void> {
    try {
      const forgotten = await this.turns.sweep();
      if (forgotten) this.logger.info({ queue: this.queue.name, forgotten }, "forgot jobs the queue lost from the tenants' turns");
    } catch (error) {
      this.logger.warn({ queue: this.queue.name, err: (error as Error).message }, "could not sweep the tenants' turns");
    }
  }
}

/**
 * Runs `work` holding one of `limit` slots of `key` shared by every process (its lease renewed
 * while it runs, so a crashed holder's slot frees itself), or throws `onBusy()` at once when
 * all are taken. `key` is relative to the client's key prefix.
 */
export async function withTenantSlot<T>(redis: Redis, key: string, limit: number, work: () => Promise<T>, onBusy: () => Error): Promise<T> {
  const holder = randomUUID();
  if ((await redis.eval(ACQUIRE, 1, key, holder, limit, Date.now(), SLOT_LEASE_MS, KEY_TTL_MS)) !== 1) throw onBusy();
  const renewal = setInterval(() => void redis.eval(RENEW, 1, key, holder, Date.now() + SLOT_LEASE_MS).catch(() => undefined), SLOT_LEASE_MS / 3);
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    // A failed release only keeps the slot until its lease ends.
    await redis.zrem(key, holder).catch(() => undefined);
  }
}
