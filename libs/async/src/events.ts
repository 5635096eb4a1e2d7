import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { Logger } from '@quire/runtime';

/** A fact one service tells the others (design.md §6–7): on the stream, at least once. */
export interface DomainEvent<T = unknown> {
  /** Idempotency key: consumers process each id once per group. */
  id: string;
  type: string;
  organizationId?: string;
  occurredAt: string;
  payload: T;
}

export interface EventSubscription {
  stop(): Promise<void>;
}

export interface EventBus {
  publish<T>(event: { type: string; organizationId?: string; payload: T; id?: string }): Promise<DomainEvent<T>>;
  /**
   * Delivers every event to `handler` once per consumer `group` (consumers sharing a group
   * share the work). A handler that throws gets the event again after `retryAfterMs`.
   * With `types`, other events are acknowledged for the whole group without a call: so a
   * group name belongs to one subscription (e.g. `content-grants`), never to two that
   * filter different types. Events are handled one at a time, in stream order, unless
   * `concurrency` allows more at once: then in no set order, and the handler must itself be
   * idempotent (two copies of one event published twice may run side by side).
   */
  subscribe(
    group: string,
    handler: (event: DomainEvent) => Promise<void>,
    options?: { consumer?: string; types?: string[]; retryAfterMs?: number; blockMs?: number; concurrency?: number },
  ): Promise<EventSubscription>;
  close(): Promise<void>;
}

const DONE_TTL_SECONDS = 7 * 24 * 3600;
const STREAM_MAX_LENGTH = 100_000;

/**
 * Domain events on a Redis Stream with consumer groups. Delivery is at least once;
 * a per-group "done" marker keyed by event id makes consumers idempotent even when the
 * same event is published twice or redelivered after a crash.
 */
export function createEventBus(options: { redisUrl: string; prefix: string; logger: Logger; stream?: string }): EventBus {
  const stream = `${options.prefix}${options.stream ?? 'events'}`;
  const doneKey = (group: string, id: string) => `${stream}:done:${group}:${id}`;
  const writer = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  writer.on('error', () => {});
  const subscriptions = new Set<EventSubscription>();

  return {
    async publish(input) {
      const event: DomainEvent<typeof input.payload> = {
        id: input.id ?? randomUUID(),
        type: input.type,
        organizationId: input.organizationId,
        occurredAt: new Date().toISOString(),
        payload: input.payload,
      };
      await writer.xadd(stream, 'MAXLEN', '~', STREAM_MAX_LENGTH, '*', 'event', JSON.stringify(event));
      return event;
    },

    async subscribe(group, handler, subscribeOptions = {}) {
      const consumer = subscribeOptions.consumer ?? randomUUID();
      const retryAfterMs = subscribeOptions.retryAfterMs ?? 30_000;
      const blockMs = subscribeOptions.blockMs ?? 1_000;
      const concurrency = Math.max(1, subscribeOptions.concurrency ?? 1);
      const types = subscribeOptions.types ? new Set(subscribeOptions.types) : undefined;
      // Blocking reads need a connection of their own.
      const reader = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
      reader.on('error', () => {});
      try {
        await reader.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
      } catch (error) {
        if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
      }

      let running = true;
      const handle = async (messageId: string, fields: string[]) => {
        const raw = fields[fields.indexOf('event') + 1];
        let event: DomainEvent | undefined;
        try {
          event = JSON.parse(raw) as DomainEvent;
        } catch {
          options.logger.error({ messageId }, 'dropping an unreadable event');
        }
        if (event && (!types || types.has(event.type)) && !(await writer.exists(doneKey(group, event.id)))) {
          try {
            await handler(event);
          } catch (error) {
            // Not acknowledged: it stays pending and is claimed again after retryAfterMs.
            options.logger.warn({ err: error, eventId: event.id, type: event.type, group }, 'event handler failed; will retry');
            return;
          }
          await writer.set(doneKey(group, event.id), '1', 'EX', DONE_TTL_SECONDS);
        }
        await writer.xack(stream, group, messageId);
      };

      /** Handles a batch read from the stream, `concurrency` entries at a time. */
      const handleAll = async (entries: Array<[string, string[]]>) => {
        let next = 0;
        const lane = async () => {
          while (running && next < entries.length) {
            const [id, fields] = entries[next++];
            await handle(id, fields);
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, entries.length) }, lane));
      };

      const loop = (async () => {
        while (running) {
          try {
            // First what others (or we) left pending for too long, then new events.
            const [, claimed] = (await reader.xautoclaim(stream, group, consumer, retryAfterMs, '0', 'COUNT', 50)) as [
              string,
              Array<[string, string[]] | null>,
            ];
            await handleAll(claimed.filter((entry): entry is [string, string[]] => entry !== null));
            const fresh = (await reader.xreadgroup('GROUP', group, consumer, 'COUNT', 50, 'BLOCK', blockMs, 'STREAMS', stream, '>')) as Array<
              [string, Array<[string, string[]]>]
            > | null;
            for (const [, entries] of fresh ?? []) await handleAll(entries);
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
          reader.disconnect();
          await loop;
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      writer.disconnect();
    },
  };
}
