import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { conversationInput } from '@quire/contract';
import { httpError, loadOrgAccess, requireOrgAdmin, type OrgAccess } from '@quire/http';
import { installationScopes, retryOnDuplicateKey, type Principal } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { attributesJson, type ConversationDoc } from './models';
import { enqueueProcessing } from './worker';

/*
 * Ingestion: a conversation is stored (a new one, or the same id again: updated, never
 * duplicated) and its processing queued; the answer does not wait for it.
 */

export type ConversationInput = z.output<typeof conversationInput>;

/** The scope an installation token needs to ingest. */
export const INGEST_SCOPE = 'conversations:ingest';
const MAX_SOURCE_LENGTH = 100;

/**
 * The caller's access to the organization's conversations: members read, outsiders get 404; so
 * does an installation token whose scopes do not name conversations (only conversations:ingest does).
 */
export async function conversationsAccess(ctx: InsightsContext, caller: Principal, organizationId: string): Promise<OrgAccess> {
  const access = await loadOrgAccess(ctx, caller.userId, organizationId);
  if (installationScopes()?.includes(INGEST_SCOPE) === false) throw httpError.notFound('Organization');
  return access;
}

/**
 * The organization's `ingestConversations` permission: its admins, and installation tokens
 * whose integration has the conversations:ingest scope (they are members with a read or edit role).
 */
export function requireIngest(access: OrgAccess): void {
  const scopes = installationScopes();
  if (scopes === undefined) return requireOrgAdmin(access, 'ingest conversations');
  if (!scopes.includes(INGEST_SCOPE)) throw httpError.forbidden(`Ingesting conversations needs the ${INGEST_SCOPE} scope`);
}

/** The stored id of a conversation: one per (organization, ingested id), whatever the id holds. */
export function conversationKey(organizationId: string, id: string): string {
  return createHash('sha256').update(`${organizationId}\n${id}`).digest('base64url').slice(0, 32);
}

/** Where a conversation comes from: its `source` attribute, else its address's host, else `api`. */
export function sourceOf(input: Pick<ConversationInput, 'metadata'>): string {
  const attribute = input.metadata.attributes.source?.trim();
  if (attribute) return attribute.slice(0, MAX_SOURCE_LENGTH);
  if (input.metadata.url) {
    try {
      return new URL(input.metadata.url).hostname.slice(0, MAX_SOURCE_LENGTH);
    } catch {
      // An address that parses with zod parses here too; nothing else to take the source from.
    }
  }
  return 'api';
}

/** Stores one conversation (insert, or update of the same id) and returns its key and new revision. */
async function storeConversation(ctx: InsightsContext, organizationId: string, input: ConversationInput): Promise<{ key: string; revision: number }> {
  const key = conversationKey(organizationId, input.id);
  const now = new Date();
  const happenedAt = input.metadata.createdAt ? new Date(input.metadata.createdAt) : undefined;
  const update = {
    $set: {
      organizationId,
      conversationId: input.id,
      subject: input.subject ?? null,
      source: sourceOf(input),
      url: input.metadata.url ?? null,
      attributes: attributesJson.write(input.metadata.attributes),
      parts: input.parts,
      updatedAt: now,
      processedAt: null,
      pending: true,
      ...(happenedAt ? { createdAt: happenedAt } : {}),
    },
    $setOnInsert: { ingestedAt: now, processedRevision: 0, ...(happenedAt ? {} : { createdAt: now }) },
    $inc: { revision: 1 },
  };
  // Two ingestions of a new id at once: the second upsert meets the first's row and updates it.
  const stored = await retryOnDuplicateKey(() =>
    ctx.models.Conversation.findOneAndUpdate({ _id: key }, update, { upsert: true, returnDocument: 'after' }).lean<Pick<ConversationDoc, 'revision'>>(),
  );
  return { key, revision: stored!.revision };
}

/** Ingests conversations (a batch: each id once, the last one given wins) and queues their processing. */
export async function ingestConversations(ctx: InsightsContext, organizationId: string, inputs: readonly ConversationInput[]): Promise<void> {
  const byId = new Map(inputs.map((input) => [input.id, input]));
  for (const input of byId.values()) {
    const { key, revision } = await storeConversation(ctx, organizationId, input);
    await enqueueProcessing(ctx, { key, revision, organizationId });
  }
}
