import { createHash } from 'node:crypto';
import { keysetPage, type KeysetPage, type ListQuery } from '@quire/http';
import { isDuplicateKeyError, newId } from '@quire/runtime';
import { eventPayloadJson, type IntegrationEventDoc } from '../db/models';
import type { IntegrationsContext } from './context';
import { enqueueDelivery } from './delivery';

/*
 * Integration events: one row per event and installation (its id is the event id the
 * integration sees as `payload.eventId`), written before its delivery job is queued, so a
 * delivery is never lost: a row still pending without a job is queued again (delivery.ts).
 */

/** GitBook's `Event` union, by its common fields; the type's own follow. */
export interface EventPayload {
  eventId: string;
  type: string;
  installationId: string;
  [field: string]: unknown;
}

export interface NewIntegrationEvent {
  integrationName: string;
  installationId: string;
  organizationId: string;
  payload: EventPayload;
}

/** A new random event id (for events this service originates: installations set up or deleted). */
export const newEventId = (): string => newId();

/**
 * The id of an event derived from what caused it: the same cause recorded twice (a stream event
 * redelivered, or two stream events about the same change) is one event.
 */
export function derivedEventId(...parts: string[]): string {
  return `ev${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 22)}`;
}

/**
 * Records each event once (by its id) and queues its delivery. An event already recorded is
 * queued again only while still pending (the queue ignores a job it already holds).
 * Returns how many were new.
 */
export async function recordEvents(ctx: IntegrationsContext, events: NewIntegrationEvent[]): Promise<number> {
  let recorded = 0;
  const toQueue: Array<{ eventId: string; organizationId: string }> = [];
  for (const event of events) {
    const now = new Date();
    const row: IntegrationEventDoc = {
      _id: event.payload.eventId,
      integrationName: event.integrationName,
      installationId: event.installationId,
      organizationId: event.organizationId,
      type: event.payload.type,
      payload: eventPayloadJson.write(event.payload),
      status: 'pending',
      attempts: 0,
      logs: [],
      deliveredTo: null,
      finishedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await ctx.models.IntegrationEvent.create(row);
      recorded += 1;
      toQueue.push({ eventId: row._id, organizationId: row.organizationId });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const existing = await ctx.models.IntegrationEvent.findById(row._id, { status: 1 }).lean();
      if (existing?.status === 'pending') toQueue.push({ eventId: row._id, organizationId: row.organizationId });
    }
  }
  for (const event of toQueue) {
    try {
      await enqueueDelivery(ctx, event);
    } catch (error) {
      // The row is durable: the sweep of pending events queues it once Redis answers again.
      ctx.logger.warn({ err: error, eventId: event.eventId }, 'could not queue an event delivery; the sweep will');
    }
  }
  return recorded;
}

/**
 * What the integration's developers see of its events: those delivered or given up, each with its
 * outcome as GitBook's IntegrationEvent has it (`status` success or failed); one still on its way
 * shows once it has one.
 */
const SETTLED = { $in: ['success' as const, 'failed' as const] };

/** An event delivered or given up. */
export type SettledEventDoc = IntegrationEventDoc & { status: 'success' | 'failed' };

/** The integration's settled events, newest first (keyset on createdAt, then id). */
export async function listEvents(ctx: IntegrationsContext, integrationName: string, query: ListQuery): Promise<KeysetPage<SettledEventDoc>> {
  // The filter leaves out pending events: what the page holds is settled.
  return (await keysetPage(ctx.models.IntegrationEvent, {
    filter: { integrationName, status: SETTLED },
    sortField: 'createdAt',
    order: 'desc',
    limit: query.limit,
    page: query.page,
  })) as KeysetPage<SettledEventDoc>;
}

export async function findEvent(ctx: IntegrationsContext, integrationName: string, eventId: string): Promise<SettledEventDoc | null> {
  return ctx.models.IntegrationEvent.findOne({ _id: eventId, integrationName, status: SETTLED }).lean<SettledEventDoc>();
}
