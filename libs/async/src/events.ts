import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { z } from 'zod';
import { gaugeOf, inSpan, traceCarrier, type Logger, type MetricsRegistry } from '@quire/runtime';

/** A fact one service tells the others (design.md §6–7): on the stream, at least once. */
export interface DomainEvent<Payload = unknown, Type extends string = string> {
  /** Idempotency key: consumers process each id once per group. */
  id: string;
  type: Type;
  organizationId?: string;
  occurredAt: string;
  payload: Payload;
}

/** An event of the stream: its type and the schema of its payload. Services' events are declared in EVENTS. */
export interface EventDefinition<Type extends string = string, Schema extends z.ZodType = z.ZodType> {
  readonly type: Type;
  readonly schema: Schema;
  /**
   * The stream it travels on when not the bus's own (`events`): a kind of event far busier than
   * the others goes on a stream of its own, so that only the groups that take it read its entries.
   */
  readonly stream?: string;
}

/** Declares an event of the stream: services' events are all in EVENTS (event-types.ts); a tool or a test may declare its own. */
export function defineEvent<const Type extends string, Schema extends z.ZodType>(
  type: Type,
  schema: Schema,
  options: { stream?: string } = {},
): EventDefinition<Type, Schema> {
  return options.stream ? { type, schema, stream: options.stream } : { type, schema };
}

/** The payload a producer of `D` passes. */
export type EventInput<D extends EventDefinition> = z.input<D['schema']>;

/** An event of `D` with its parsed payload: a union discriminated by `type` when `D` is several definitions. */
export type EventOf<D extends EventDefinition> = D extends EventDefinition ? DomainEvent<z.output<D['schema']>, D['type']> : never;

export interface PublishOptions {
  organizationId?: string;
  /** The event's id (default: a new one); publishing an id twice delivers it once per group. */
  id?: string;
}

export interface SubscribeOptions {
  consumer?: string;
  retryAfterMs?: number;
  blockMs?: number;
  concurrency?: number;
}

export interface EventSubscription {
  stop(): Promise<void>;
}

export interface EventBus {
  /** Puts an event of `definition` on the stream; rejects, publishing nothing, when `payload` does not match its schema. */
  publish<D extends EventDefinition>(definition: D, payload: EventInput<D>, options?: PublishOptions): Promise<EventOf<D>>;
  /**
   * Delivers every event of `definitions` to `handler` once per consumer `group` (consumers
   * sharing a group share the work), its payload parsed with the definition's schema, reading
   * every stream they travel on (the bus's own, and those of definitions that name one). A handler
   * that throws gets the event again after `retryAfterMs`; a payload that does not parse is
   * logged (error) and acknowledged, never handed over. Other events are acknowledged for the
   * whole group without a call: so a group name belongs to one subscription (e.g.
   * `content-grants`), never to two that take different events. Events are handled one at a
   * time, in stream order, unless `concurrency` allows more at once: then in no set order, and
   * the handler must itself be idempotent (two copies of one event published twice may run side
   * by side).
   */
  subscribe<const Definitions extends readonly [EventDefinition, ...EventDefinition[]]>(
    group: string,
    definitions: Definitions,
    handler: (event: EventOf<Definitions[number]>) => Promise<void>,
    options?: SubscribeOptions,
  ): Promise<EventSubscription>;
  close(): Promise<void>;
}

/** Where a payload fails its schema, without its values (they may be personal data). */
function issuesOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(payload)'}: ${issue.code}`);
}

/**
 * The event `publish` puts on the stream (tests hand it to a consumer's handler directly); throws
 * when `payload` does not match the definition's schema.
 */
export function createEvent<D extends EventDefinition>(definition: D, payload: EventInput<D>, options: PublishOptions = {}): EventOf<D> {
  const parsed = definition.schema.safeParse(payload);
  if (!parsed.success) throw new Error(`The payload of ${definition.type} does not match its definition (${issuesOf(parsed.error).join(', ')})`);
  const event: DomainEvent = {
    id: options.id ?? randomUUID(),
    type: definition.type,
    organizationId: options.organizationId,
    occurredAt: new Date().toISOString(),
    payload: parsed.data,
  };
  return event as EventOf<D>;
}

/** The value of a stream entry's field `name` (its fields are name, value, name, value…). */
function fieldOf(fields: string[], name: string): string | undefined {
  for (let at = 0; at < fields.length - 1; at += 2) if (fields[at] === name) return fields[at + 1];
  return undefined;
}

/** The trace context an entry carries (its `trace` field), if any. */
function traceOf(fields: string[]): Record<string, string> | undefined {
  const value = fieldOf(fields, 'trace');
  if (value === undefined) return undefined;
  try {
    const carrier = JSON.parse(value) as unknown;
    if (carrier && typeof carrier === 'object' && Object.values(carrier).every((value) => typeof value === 'string')) return carrier as Record<string, string>;
  } catch {
    // Not JSON: the event is handled without it.
  }
  return undefined;
}

/** The envelope every event has on the stream (its payload is its definition's to check). */
const envelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string(),
  organizationId: z.string().optional(),
  occurredAt: z.string(),
  payload: z.unknown(),
});

const DONE_TTL_SECONDS = 7 * 24 * 3600;
/** How much longer than a blocking read a stopping subscription waits for it to return. */
const STOP_READ_GRACE_MS = 2_000;
/** How often a consumer looks for entries left pending too long (at most; retryAfterMs when shorter): not before every read of a busy stream. */
const CLAIM_EVERY_MS = 1_000;
/** Entries one claim takes. */
const CLAIM_COUNT = 50;
const STREAM_MAX_LENGTH = 100_000;

/** A consumer group's fields in XINFO GROUPS we report. */
const groupInfoSchema = z.object({ name: z.string(), pending: z.number(), lag: z.number().nullable().optional() });

/**
 * Reports, in `registry`, what the groups `consumed()` names have left on each stream they read
 * at each scrape (XINFO GROUPS): the entries not yet delivered to each (its lag; left out when
 * Redis cannot tell, after entries were deleted) and those delivered but not acknowledged.
 * `keyOf` is a stream's key in Redis. Returns what stops the reports.
 */
function reportGroups(registry: MetricsRegistry, redis: Redis, keyOf: (stream: string) => string, consumed: () => Map<string, Set<string>>): () => void {
  /** The streams' groups this bus consumes, as XINFO GROUPS describes them: one read for both gauges of a scrape. */
  let reading: Promise<Array<z.infer<typeof groupInfoSchema> & { stream: string }>> | undefined;
  const read = () => (reading ??= readGroups().finally(() => (reading = undefined)));
  const readGroups = async () => {
    const perStream = await Promise.all(
      [...consumed()].map(async ([stream, groups]) => {
        const infos = (await redis.xinfo('GROUPS', keyOf(stream))) as unknown[][];
        return infos
          .map((fields) =>
            groupInfoSchema.safeParse(Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]))),
          )
          .flatMap((info) => (info.success && groups.has(info.data.name) ? [{ ...info.data, stream }] : []));
      }),
    );
    return perStream.flat();
  };
  const stopLag = gaugeOf(
    registry,
    { name: 'quire_event_stream_lag', help: 'Entries of an event stream not yet delivered to a consumer group', labelNames: ['stream', 'group'] as const },
    async () => (await read()).flatMap(({ stream, name, lag }) => (typeof lag === 'number' ? [{ labels: { stream, group: name }, value: lag }] : [])),
  );
  const stopPending = gaugeOf(
    registry,
    {
      name: 'quire_event_stream_pending',
      help: 'Entries of an event stream delivered to a consumer group and not yet acknowledged',
      labelNames: ['stream', 'group'] as const,
    },
    async () => (await read()).map(({ stream, name, pending }) => ({ labels: { stream, group: name }, value: pending })),
  );
  return () => {
    stopLag();
    stopPending();
  };
}

/**
 * Domain events on Redis Streams with consumer groups (one stream, `events`, but for events
 * defined on a stream of their own). Delivery is at least once;
 * a per-group "done" marker keyed by event id makes consumers idempotent even when the
 * same event is published twice or redelivered after a crash. With `metrics`, the lag and
 * pending entries of the groups this bus subscribes to are reported there at each scrape.
 */
export function createEventBus(options: { redisUrl: string; prefix: string; logger: Logger; stream?: string; metrics?: MetricsRegistry }): EventBus {
  // A stream's name in spans and metrics is without the deployment's prefix.
  const ownStream = options.stream ?? 'events';
  const streamOf = (definition: EventDefinition) => definition.stream ?? ownStream;
  const keyOf = (stream: string) => `${options.prefix}${stream}`;
  // One per group and event, whichever stream it came on.
  const doneKey = (group: string, id: string) => `${keyOf(ownStream)}:done:${group}:${id}`;
  const writer = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  writer.on('error', () => {});
  /** The live subscriptions: the group of each and the streams it reads. */
  const subscriptions = new Map<EventSubscription, { group: string; streams: string[] }>();
  const consumed = () => {
    const groups = new Map<string, Set<string>>();
    for (const { group, streams } of subscriptions.values()) for (const stream of streams) groups.set(stream, (groups.get(stream) ?? new Set()).add(group));
    return groups;
  };
  const stopReporting = options.metrics && reportGroups(options.metrics, writer, keyOf, consumed);
  const messaging = (stream: string) => ({ 'messaging.system': 'redis', 'messaging.destination.name': stream });

  /** The event of a stream entry; undefined (logged) for one that is not an event at all. */
  const read = (messageId: string, fields: string[], group: string): DomainEvent | undefined => {
    try {
      const envelope = envelopeSchema.safeParse(JSON.parse(fieldOf(fields, 'event') ?? ''));
      if (envelope.success) return envelope.data;
    } catch {
      // Not JSON: logged below.
    }
    options.logger.error({ messageId, group }, 'dropping an unreadable event');
    return undefined;
  };

  return {
    async publish(definition, payload, publishOptions) {
      const event = createEvent(definition, payload, publishOptions);
      const stream = streamOf(definition);
      // The entry carries the trace of the work that published it: each consumer's handling continues it.
      await inSpan(
        `send ${stream}`,
        {
          kind: 'producer',
          attributes: { ...messaging(stream), 'messaging.operation.type': 'send', 'messaging.message.id': event.id, 'quire.event.type': event.type },
        },
        async () => {
          const carrier = traceCarrier();
          const traced = carrier ? ['trace', JSON.stringify(carrier)] : [];
          // Its type beside it, so that a group taking other events passes it without reading it (subscribe's handle).
          await writer.xadd(keyOf(stream), 'MAXLEN', '~', STREAM_MAX_LENGTH, '*', 'event', JSON.stringify(event), 'type', event.type, ...traced);
        },
      );
      return event;
    },

    async subscribe(group, definitions, handler, subscribeOptions = {}) {
      const consumer = subscribeOptions.consumer ?? randomUUID();
      const retryAfterMs = subscribeOptions.retryAfterMs ?? 30_000;
      const blockMs = subscribeOptions.blockMs ?? 1_000;
      const concurrency = Math.max(1, subscribeOptions.concurrency ?? 1);
      const wanted = new Map<string, EventDefinition>(definitions.map((definition) => [definition.type, definition]));
      const streams = [...new Set(definitions.map(streamOf))];
      const streamByKey = new Map(streams.map((stream) => [keyOf(stream), stream]));
      // Blocking reads need a connection of their own.
      const reader = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
      reader.on('error', () => {});
      for (const stream of streams) {
        try {
          // From the stream's first entry: a group new to a stream misses nothing written to it before.
          await reader.xgroup('CREATE', keyOf(stream), group, '0', 'MKSTREAM');
        } catch (error) {
          if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
        }
      }

      let running = true;
      /** Hands an event over unless done; false when the handler failed (the entry stays pending, to be retried). */
      const deliver = async (event: DomainEvent, definition: EventDefinition): Promise<boolean> => {
        if (await writer.exists(doneKey(group, event.id))) return true;
        const payload = definition.schema.safeParse(event.payload);
        if (!payload.success) {
          // A producer's bug: retrying cannot mend it, and the values stay out of the logs.
          options.logger.error(
            { eventId: event.id, type: event.type, group, issues: issuesOf(payload.error) },
            'dropping an event whose payload does not match its definition',
          );
          return true;
        }
        try {
          await handler({ ...event, payload: payload.data } as EventOf<(typeof definitions)[number]>);
        } catch (error) {
          options.logger.warn({ err: error, eventId: event.id, type: event.type, group }, 'event handler failed; will retry');
          return false;
        }
        await writer.set(doneKey(group, event.id), '1', 'EX', DONE_TTL_SECONDS);
        return true;
      };

      const handle = async (stream: string, messageId: string, fields: string[]) => {
        // An entry that says its type (every one publish writes) and is of a type this group does not take is acknowledged unread.
        const type = fieldOf(fields, 'type');
        const event = type === undefined || wanted.has(type) ? read(messageId, fields, group) : undefined;
        const definition = event && wanted.get(event.type);
        // Not acknowledged when the handler failed: it stays pending and is claimed again after retryAfterMs.
        if (definition) {
          const delivered = await inSpan(
            `process ${stream}`,
            {
              kind: 'consumer',
              parent: traceOf(fields),
              attributes: {
                ...messaging(stream),
                'messaging.operation.type': 'process',
                'messaging.consumer.group.name': group,
                'messaging.message.id': event.id,
                'quire.event.type': event.type,
              },
            },
            () => deliver(event, definition),
          );
          if (!delivered) return;
        }
        await writer.xack(keyOf(stream), group, messageId);
      };

      /**
       * Handles a batch read from the stream, `concurrency` entries at a time: all of it, also
       * when the subscription is stopping (what this consumer read and left would wait pending
       * for another to claim it, retryAfterMs later).
       */
      const handleAll = async (stream: string, entries: Array<[string, string[]]>) => {
        let next = 0;
        const lane = async () => {
          while (next < entries.length) {
            const [id, fields] = entries[next++];
            await handle(stream, id, fields);
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, entries.length) }, lane));
      };

      const claimEveryMs = Math.min(retryAfterMs, CLAIM_EVERY_MS);
      let claimedAt = 0;
      const loop = (async () => {
        while (running) {
          try {
            // First what others (or we) left pending for too long (looked for every claimEveryMs, or
            // at once again after a full claim), then new events.
            if (Date.now() - claimedAt >= claimEveryMs) {
              let full = false;
              for (const stream of streams) {
                const [, claimed] = (await reader.xautoclaim(keyOf(stream), group, consumer, retryAfterMs, '0', 'COUNT', CLAIM_COUNT)) as [
                  string,
                  Array<[string, string[]] | null>,
                ];
                if (claimed.length >= CLAIM_COUNT) full = true;
                await handleAll(
                  stream,
                  claimed.filter((entry): entry is [string, string[]] => entry !== null),
                );
              }
              if (!full) claimedAt = Date.now();
            }
            const fresh = (await reader.xreadgroup(
              'GROUP',
              group,
              consumer,
              'COUNT',
              50,
              'BLOCK',
              blockMs,
              'STREAMS',
              ...streamByKey.keys(),
              ...streams.map(() => '>'),
            )) as Array<[string, Array<[string, string[]]>]> | null;
            for (const [key, entries] of fresh ?? []) await handleAll(streamByKey.get(key) ?? ownStream, entries);
          } catch (error) {
            if (!running) break;
            options.logger.warn({ err: (error as Error).message, group }, 'event stream read failed; retrying');
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      })();

      const subscription: EventSubscription = {
        async stop() {
          running = false;
          subscriptions.delete(subscription);
          // The read under way returns within blockMs and what it brought is handled (handleAll):
          // cutting the connection under it would leave those entries pending on this consumer.
          // Redis out of reach would hold that read: it is cut after a bounded wait.
          let waited: NodeJS.Timeout | undefined;
          const ended = await Promise.race([
            loop.then(() => true),
            new Promise<false>((resolve) => (waited = setTimeout(() => resolve(false), blockMs + STOP_READ_GRACE_MS))),
          ]);
          clearTimeout(waited);
          reader.disconnect();
          if (!ended) await loop;
        },
      };
      subscriptions.set(subscription, { group, streams });
      return subscription;
    },

    async close() {
      stopReporting?.();
      await Promise.all([...subscriptions.keys()].map((s) => s.stop()));
      writer.disconnect();
    },
  };
}
