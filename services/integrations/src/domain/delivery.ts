import { createHmac } from 'node:crypto';
import { jobLockMs, queuePerInstance } from '@quire/async';
import { counterOf, histogramOf, withRedisLock, LockBusyError } from '@quire/runtime';
import { eventPayloadJson, type IntegrationDoc, type IntegrationEventDoc, type TraceLogLine } from '../db/models';
import { presentInstallation, presentTargetInstallation } from '../presenters/installation-presenter';
import { dispatchRequest, type IntegrationEnvironment, type IntegrationEvent, type ScriptRequest } from '../runtime';
import type { IntegrationsContext } from './context';
import { deliversToTunnel } from './dev';
import { EgressError, egressPolicyOf, egressRequest } from './egress-fetch';
import { installationToken } from './installation-tokens';
import { runIntegrationScript, ScriptRunBusyError } from './script-runs';
import { integrationSecrets, integrationSigningSecret } from './secrets';

/*
 * Delivery of integration events: at least once, with retries and exponential backoff
 * (BullMQ), idempotent by event id (an event already delivered or given up is never run
 * again), never lost (the row is written before the job; pending rows without a live job are
 * queued again when the service starts and every DELIVERY_SWEEP_MS).
 *
 * What is delivered is what GitBook's dispatcher sends, so that an integration built with
 * @gitbook/runtime runs unchanged, in Quire's runtime or behind `gitbook dev`'s tunnel: a POST
 * whose multipart/form-data body has the fields `event` (the event JSON) and `environment`.
 * In dev mode (see dev.ts) it goes to the tunnel URL; otherwise the published script handles it.
 *
 * Signature. Every delivery carries the header
 *
 *     X-Quire-Delivery-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">
 *
 * keyed with the integration's signing secret (`environment.signingSecrets.integration`), where
 * <body> is the exact bytes of the request's body. A receiver recomputes it, compares in
 * constant time, and refuses a `t` too far from its clock (replays).
 */

const SIGNATURE_HEADER = 'x-quire-delivery-signature';
/** Attempts of one delivery; waits between them: 1 s, 2 s, 4 s, 8 s. */
const DELIVERY_ATTEMPTS = 5;
const BACKOFF_DELAY_MS = 1_000;
/** Time a dev tunnel has to answer one delivery. */
const TUNNEL_TIMEOUT_MS = 10_000;
/** How long a delivery waits for a free script run slot of its integration and organization before this attempt gives up (script-runs.ts). */
const SLOT_WAIT_MS = 10_000;
/** Trace lines kept per event, all attempts together. */
const MAX_TRACE_LINES = 500;
/**
 * The delivery lock lives this long past its holder's last renewal (every third of it), plus
 * the script's CPU time (a margin: scripts run on worker threads, renewals go on meanwhile): half
 * the jobs' lock (JOB_LOCK_MS). A worker that crashed mid-delivery so frees its events by the
 * time BullMQ runs their stalled jobs again, instead of making those attempts fail as busy until
 * the sweep.
 */
const deliveryLockMs = (ctx: IntegrationsContext) => jobLockMs(ctx.config) / 2;
const SWEEP_BATCH = 500;

interface DeliveryJob {
  eventId: string;
  /** The organization the event is delivered in: its deliveries take turns with other organizations' (absent in jobs queued before it was added). */
  organizationId?: string;
}

/**
 * The delivery queue of each service instance: fair between organizations (one organization's
 * burst of events does not delay another's event; DELIVERY_ACTIVE_PER_ORGANIZATION bounds how
 * many of its deliveries run at once).
 */
const deliveryQueue = queuePerInstance<DeliveryJob, void>(
  'integration-deliveries',
  { attempts: DELIVERY_ATTEMPTS, backoff: { type: 'exponential', delay: BACKOFF_DELAY_MS } },
  { tenantOf: (job) => job.organizationId },
);
const deliveryQueueOf = (ctx: IntegrationsContext) => deliveryQueue.of(ctx);

/** Queues the delivery of a recorded event; the queue ignores a job id it already holds. */
export async function enqueueDelivery(ctx: IntegrationsContext, event: { eventId: string; organizationId: string }, jobId = event.eventId): Promise<void> {
  await deliveryQueueOf(ctx).add({ eventId: event.eventId, organizationId: event.organizationId }, { jobId });
}

/** The X-Quire-Delivery-Signature value of a delivery whose body is `body` (see above). */
export function signDelivery(secret: string, body: string | Uint8Array, now = Date.now()): string {
  const timestamp = Math.floor(now / 1000);
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

interface Outcome {
  ok: boolean;
  /** Worth another attempt (a connection problem, a 5xx): a refused address or a limit reached is not. */
  retryable: boolean;
  logs: TraceLogLine[];
  to: 'runtime' | 'tunnel' | null;
}

const line = (level: TraceLogLine['level'], message: string): TraceLogLine => ({ level, message, timestamp: new Date() });
const snippet = (body: Uint8Array) => Buffer.from(body).toString('utf8').slice(0, 300);

/**
 * What the script (or the dev server behind the tunnel) is told: GitBook's IntegrationEnvironment,
 * for an event of `installationId` (null: the integration's own, e.g. a request to its public endpoint).
 */
export async function environmentOf(
  ctx: IntegrationsContext,
  integration: IntegrationDoc,
  installationId: string | null,
  payload: IntegrationEvent,
): Promise<IntegrationEnvironment> {
  const { config, models } = ctx;
  const spaceId = typeof payload.spaceId === 'string' ? payload.spaceId : undefined;
  const siteId = typeof payload.siteId === 'string' ? payload.siteId : undefined;
  // A site event names the site's space too (site_view's deprecated `spaceId`): its site is what it is about.
  const about = siteId ? { kind: 'site' as const, targetId: siteId } : spaceId ? { kind: 'space' as const, targetId: spaceId } : undefined;
  // Three independent reads, side by side.
  const [installation, target, spaces] = installationId
    ? await Promise.all([
        models.Installation.findById(installationId).lean(),
        about ? models.TargetInstallation.findOne({ installationId, ...about }).lean() : null,
        models.TargetInstallation.countDocuments({ installationId, kind: 'space' }),
      ])
    : [null, null, 0];
  const signingSecret = integrationSigningSecret(config, integration);
  return {
    apiEndpoint: config.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    // The installation's token (context.api): the script calls the API back as its installation.
    apiTokens: { integration: '', ...(installation ? { installation: await installationToken(ctx, integration, installation) } : {}) },
    integration: {
      name: integration._id,
      version: integration.version,
      title: integration.title,
      scopes: integration.scopes,
      target: integration.target,
      visibility: integration.visibility,
    },
    ...(installation ? { installation: presentInstallation(installation, { integration, spaces, config }) } : {}),
    ...(target?.kind === 'space' ? { spaceInstallation: { ...presentTargetInstallation(target, { config }), space: target.targetId } } : {}),
    ...(target?.kind === 'site' ? { siteInstallation: { ...presentTargetInstallation(target, { config }), site: target.targetId } } : {}),
    secrets: integrationSecrets(config, integration),
    signingSecrets: { integration: signingSecret },
    signingSecret,
  };
}

async function toTunnel(ctx: IntegrationsContext, tunnelUrl: string, request: ScriptRequest): Promise<Outcome> {
  const started = performance.now();
  const logs = [line('info', `POST ${tunnelUrl} (dev mode)`)];
  try {
    const answer = await egressRequest(
      tunnelUrl,
      { method: 'POST', headers: request.headers, body: request.body, timeoutMs: TUNNEL_TIMEOUT_MS, maxResponseBytes: 1024 * 1024 },
      egressPolicyOf(ctx.config),
    );
    const duration = Math.round(performance.now() - started);
    const ok = answer.status >= 200 && answer.status < 300;
    logs.push(line(ok ? 'info' : 'error', `The tunnel answered ${answer.status} in ${duration} ms${ok ? '' : `: ${snippet(answer.body)}`}`));
    return { ok, retryable: answer.status >= 500 || answer.status === 429, logs, to: 'tunnel' };
  } catch (error) {
    if (!(error instanceof EgressError)) throw error;
    logs.push(line('error', `The tunnel could not be reached after ${Math.round(performance.now() - started)} ms: ${error.message}`));
    return { ok: false, retryable: error.transient, logs, to: 'tunnel' };
  }
}

async function toRuntime(ctx: IntegrationsContext, integration: IntegrationDoc, organizationId: string, request: ScriptRequest): Promise<Outcome> {
  if (!integration.script) return { ok: false, retryable: false, logs: [line('error', 'The integration has no script to run')], to: 'runtime' };
  let result;
  try {
    const owner = { integrationName: integration._id, organizationId };
    result = await runIntegrationScript(ctx, integration.script, request, owner, { waitForSlotMs: SLOT_WAIT_MS });
  } catch (error) {
    if (!(error instanceof ScriptRunBusyError)) throw error;
    return { ok: false, retryable: true, logs: [line('warn', `The script was not run: ${error.message}`)], to: 'runtime' };
  }
  const logs = result.logs.map((entry) => ({ level: entry.level, message: entry.message, timestamp: new Date(entry.timestamp) }));
  const duration = Math.round(result.durationMs);
  if (!result.response) {
    logs.push(line('error', `The script failed after ${duration} ms: ${result.error ?? 'no answer'}`));
    return { ok: false, retryable: false, logs, to: 'runtime' };
  }
  const { status, body } = result.response;
  const ok = status >= 200 && status < 300;
  logs.push(line(ok ? 'info' : 'error', `The script answered ${status} in ${duration} ms${ok ? '' : `: ${snippet(body)}`}`));
  return { ok, retryable: status >= 500 || status === 429, logs, to: 'runtime' };
}

/** One attempt at delivering the event to its integration (tunnel or script). */
async function attemptDelivery(ctx: IntegrationsContext, row: IntegrationEventDoc): Promise<Outcome> {
  const integration = await ctx.models.Integration.findById(row.integrationName).lean<IntegrationDoc>();
  if (!integration) return { ok: false, retryable: false, logs: [line('error', 'The integration is no longer published')], to: null };
  const payload = eventPayloadJson.read(row.payload);
  const environment = await environmentOf(ctx, integration, row.installationId, payload);
  const request = await dispatchRequest({ event: payload, environment });
  const signature = signDelivery(environment.signingSecrets.integration, request.body ?? new Uint8Array());
  const signed: ScriptRequest = { ...request, headers: [...request.headers, [SIGNATURE_HEADER, signature], ['user-agent', 'Quire-Integrations/1']] };
  const tunnelUrl = deliversToTunnel(integration, row.organizationId);
  return tunnelUrl ? toTunnel(ctx, tunnelUrl, signed) : toRuntime(ctx, integration, row.organizationId, signed);
}

/** How a delivery of an event went: delivered, given up, to be attempted again, or not attempted (delivered or given up already, or gone). */
type DeliveryOutcome = 'success' | 'failed' | 'retry' | 'skipped';

/** Counts a delivery of this process by outcome, with the duration of its attempt when there was one. */
function countDelivery(ctx: IntegrationsContext, outcome: DeliveryOutcome, attemptSeconds?: number): void {
  counterOf(ctx.metrics, {
    name: 'quire_integration_deliveries_total',
    help: 'Integration event deliveries of this process, by outcome: success, retry (another attempt follows), failed (given up), skipped (nothing to deliver)',
    labelNames: ['outcome'] as const,
  }).inc({ outcome });
  if (attemptSeconds === undefined) return;
  histogramOf(ctx.metrics, {
    name: 'quire_integration_delivery_duration_seconds',
    help: 'Duration of the integration event delivery attempts of this process, by outcome',
    labelNames: ['outcome'] as const,
  }).observe({ outcome }, attemptSeconds);
}

/**
 * Delivers one event, unless it was already delivered or given up: records the outcome and
 * the trace. Returns 'retry' when this attempt failed and another one should follow.
 */
export async function deliverEvent(
  ctx: IntegrationsContext,
  eventId: string,
  attempt: { number: number; last: boolean },
): Promise<'done' | 'retry' | 'skipped'> {
  const lockMs = deliveryLockMs(ctx) + ctx.config.SCRIPT_TIMEOUT_MS;
  return withRedisLock(
    ctx.redis,
    `integration-delivery:${eventId}`,
    async () => {
      const row = await ctx.models.IntegrationEvent.findById(eventId).lean<IntegrationEventDoc>();
      if (!row || row.status !== 'pending') {
        countDelivery(ctx, 'skipped');
        return 'skipped';
      }
      const started = performance.now();
      let outcome: Outcome;
      try {
        outcome = await attemptDelivery(ctx, row);
      } catch (error) {
        // Ours, not the integration's (the runtime could not start, a secret did not open…).
        ctx.logger.error({ err: error, eventId }, 'event delivery failed');
        outcome = { ok: false, retryable: true, logs: [line('error', 'The delivery failed on the platform side')], to: null };
      }
      const attemptSeconds = (performance.now() - started) / 1000;
      const retry = !outcome.ok && outcome.retryable && !attempt.last;
      const heading = line('debug', `Attempt ${attempt.number}${outcome.to ? ` (${outcome.to})` : ''}`);
      const logs = [...row.logs, heading, ...outcome.logs].slice(-MAX_TRACE_LINES);
      const now = new Date();
      const status = outcome.ok ? 'success' : retry ? 'pending' : 'failed';
      await ctx.models.IntegrationEvent.updateOne(
        { _id: eventId, status: 'pending' },
        { $set: { status, logs, deliveredTo: outcome.to, updatedAt: now, finishedAt: status === 'pending' ? null : now }, $inc: { attempts: 1 } },
      );
      countDelivery(ctx, status === 'pending' ? 'retry' : status, attemptSeconds);
      return retry ? 'retry' : 'done';
    },
    { ttlMs: lockMs, renewEveryMs: deliveryLockMs(ctx) / 3, waitMs: 0, logger: ctx.logger },
  );
}

/**
 * Queues again every pending event older than `minAgeMs` whose job is gone (lost with Redis,
 * never added) or finished without recording an outcome (its worker died on its last attempt).
 */
export async function requeuePendingEvents(ctx: IntegrationsContext, minAgeMs: number): Promise<number> {
  const queue = deliveryQueueOf(ctx);
  const rows = await ctx.models.IntegrationEvent.find(
    { status: 'pending', createdAt: { $lte: new Date(Date.now() - minAgeMs) } },
    { _id: 1, organizationId: 1 },
  )
    .sort({ createdAt: 1 })
    .limit(SWEEP_BATCH)
    .lean();
  const states = await Promise.all(rows.map(({ _id: eventId }) => queue.state(eventId)));
  let requeued = 0;
  for (const [index, { _id: eventId, organizationId }] of rows.entries()) {
    const state = states[index];
    if (state && state.state !== 'completed' && state.state !== 'failed' && state.state !== 'unknown') continue;
    // A finished job keeps its id for a while: a new one needs an id of its own.
    await enqueueDelivery(ctx, { eventId, organizationId }, state ? `${eventId}-${Date.now()}` : eventId);
    requeued += 1;
  }
  return requeued;
}

/** Starts delivering in this process; what it returns stops the worker and the sweep. */
export async function startDeliveryWorker(ctx: IntegrationsContext): Promise<() => Promise<void>> {
  const queue = deliveryQueueOf(ctx);
  queue.work(
    async (job) => {
      const attempts = job.opts.attempts ?? 1;
      const result = await deliverEvent(ctx, job.data.eventId, { number: job.attemptsMade + 1, last: job.attemptsMade + 1 >= attempts }).catch((error) => {
        // Another worker holds this event right now: try again later.
        if (error instanceof LockBusyError) throw new Error('the event is being delivered by another worker');
        throw error;
      });
      if (result === 'retry') throw new Error('delivery attempt failed; retrying');
    },
    { concurrency: ctx.config.DELIVERY_WORKER_CONCURRENCY, maxActivePerTenant: ctx.config.DELIVERY_ACTIVE_PER_ORGANIZATION },
  );
  const sweep = async (minAgeMs: number) => {
    try {
      const requeued = await requeuePendingEvents(ctx, minAgeMs);
      if (requeued) ctx.logger.info({ requeued }, 'queued pending event deliveries again');
    } catch (error) {
      ctx.logger.warn({ err: error }, 'could not sweep pending event deliveries');
    }
  };
  // On start every pending row is checked (those of a previous run included), then regularly
  // those pending for over two sweeps (a younger one is left to its job).
  await sweep(0);
  const timer = setInterval(() => void sweep(2 * ctx.config.DELIVERY_SWEEP_MS), ctx.config.DELIVERY_SWEEP_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await deliveryQueue.close(ctx);
  };
}
