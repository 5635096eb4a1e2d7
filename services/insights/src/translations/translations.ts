import type { z } from 'zod';
import type { translation } from '@quire/contract';
import { httpError, isOrgAdmin, listEnvelope, loadOrgAccess, memoryPage, requireOrgAdmin, type ListEnvelope, type OrgAccess } from '@quire/http';
import type { Principal } from '@quire/runtime';
import type { InsightsContext } from '../kernel';
import { lookUpSpaces } from './content-client';
import { instructionsJson, type TranslationDoc } from './translation-model';
import { presentTranslation } from './translation-presenter';
import { enqueueRun } from './translation-queue';
import { EMPTY_INSTRUCTIONS, type InstructionsDocument } from './translation-schemas';
import { allTranslations, findTranslation, insertTranslation, pageOfTranslations, removeTranslation, requestRun, setInstructions } from './translation-store';

/*
 * The rules of translations. Admins of the organization create, update, run and delete them;
 * members who can open a translation's source space read it; everyone else (outsiders, tokens
 * scoped to another organization) gets 404, as for anything they may not see.
 */

type Translation = z.infer<typeof translation>;

const present = (ctx: InsightsContext, doc: TranslationDoc, access: OrgAccess) => presentTranslation(doc, { config: ctx.config, canEdit: isOrgAdmin(access) });

/** Whether the caller may read the translation: an admin, or a member with a role on its source space. */
async function canView(ctx: InsightsContext, caller: Principal, access: OrgAccess, doc: TranslationDoc): Promise<boolean> {
  if (isOrgAdmin(access)) return true;
  return !!(await lookUpSpaces(ctx, [doc.sourceSpaceId], caller.userId)).get(doc.sourceSpaceId)?.viewerRole;
}

/** The translation and the caller's standing, or 404 when it does not exist or the caller may not see it. */
async function loadVisibleTranslation(
  ctx: InsightsContext,
  caller: Principal,
  organizationId: string,
  translationId: string,
): Promise<{ doc: TranslationDoc; access: OrgAccess }> {
  const access = await loadOrgAccess(ctx, caller.userId, organizationId);
  const doc = await findTranslation(ctx, organizationId, translationId);
  if (!doc || !(await canView(ctx, caller, access, doc))) throw httpError.notFound('Translation');
  return { doc, access };
}

export interface CreateTranslationInput {
  source: { space: string; language: string };
  language: string;
  instructions?: InstructionsDocument;
}

/** Creates a translation of a space of the organization (pending: its first run starts with POST …/run). */
export async function createTranslation(ctx: InsightsContext, caller: Principal, organizationId: string, input: CreateTranslationInput): Promise<Translation> {
  const access = await loadOrgAccess(ctx, caller.userId, organizationId);
  requireOrgAdmin(access, 'create translations');
  if (input.language === input.source.language) throw httpError.badRequest('Invalid body: language: must differ from source.language');
  const space = (await lookUpSpaces(ctx, [input.source.space], caller.userId)).get(input.source.space);
  if (!space || space.organizationId !== organizationId)
    throw httpError.badRequest(`Invalid body: source.space: no space ${input.source.space} in this organization`);
  if (space.language && space.language !== input.source.language) {
    throw httpError.badRequest(`Invalid body: source.language: the space is written in ${space.language}`);
  }
  const doc = await insertTranslation(ctx, {
    organizationId,
    sourceSpaceId: space.id,
    sourceLanguage: input.source.language,
    language: input.language,
    instructions: instructionsJson.write(input.instructions ?? EMPTY_INSTRUCTIONS),
    createdBy: caller.userId,
  });
  return present(ctx, doc, access);
}

/**
 * The organization's translations the caller may read, newest first. Admins page through the
 * collection; members through the ones whose source space they can open (one BatchGetSpaces
 * for the organization's translations, which are a few per space at most).
 */
export async function listTranslations(
  ctx: InsightsContext,
  caller: Principal,
  organizationId: string,
  query: { limit: number; page?: string },
): Promise<ListEnvelope<Translation>> {
  const access = await loadOrgAccess(ctx, caller.userId, organizationId);
  if (isOrgAdmin(access)) {
    const page = await pageOfTranslations(ctx, organizationId, query);
    return listEnvelope(
      page.items.map((doc) => present(ctx, doc, access)),
      page.count,
      page.next,
    );
  }
  const all = await allTranslations(ctx, organizationId);
  const spaces = await lookUpSpaces(
    ctx,
    all.map((doc) => doc.sourceSpaceId),
    caller.userId,
  );
  const visible = all
    .filter((doc) => spaces.get(doc.sourceSpaceId)?.viewerRole)
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? -1 : 1));
  return memoryPage(visible, { cursor: 'memberCreatedAt', positionOf: (doc) => [-doc.createdAt.getTime(), doc._id] }, query, (doc) =>
    present(ctx, doc, access),
  );
}

export async function getTranslation(ctx: InsightsContext, caller: Principal, organizationId: string, translationId: string): Promise<Translation> {
  const { doc, access } = await loadVisibleTranslation(ctx, caller, organizationId, translationId);
  return present(ctx, doc, access);
}

/** Replaces the instructions (the next runs use them; pages already translated are not translated again for it). */
export async function updateTranslationInstructions(
  ctx: InsightsContext,
  caller: Principal,
  organizationId: string,
  translationId: string,
  instructions: InstructionsDocument,
): Promise<Translation> {
  const { access } = await loadVisibleTranslation(ctx, caller, organizationId, translationId);
  requireOrgAdmin(access, 'update translations');
  const doc = await setInstructions(ctx, organizationId, translationId, instructionsJson.write(instructions));
  if (!doc) throw httpError.notFound('Translation');
  return present(ctx, doc, access);
}

/**
 * Deletes the translation (204 also when there is none, or none the caller may see). The
 * target space is not deleted: it is the organization's space, with the translated pages and
 * whatever was edited there. A run under way ends without recording anything.
 */
export async function deleteTranslation(ctx: InsightsContext, caller: Principal, organizationId: string, translationId: string): Promise<void> {
  const access = await loadOrgAccess(ctx, caller.userId, organizationId);
  const doc = await findTranslation(ctx, organizationId, translationId);
  if (!doc || !(await canView(ctx, caller, access, doc))) return;
  requireOrgAdmin(access, 'delete translations');
  await removeTranslation(ctx, organizationId, translationId);
}

/** Asks one more run: queued now, it starts when no other run of the translation is under way. */
export async function runTranslation(ctx: InsightsContext, caller: Principal, organizationId: string, translationId: string): Promise<void> {
  const { access } = await loadVisibleTranslation(ctx, caller, organizationId, translationId);
  requireOrgAdmin(access, 'run translations');
  const run = await requestRun(ctx, organizationId, translationId, caller.userId);
  if (run === null) throw httpError.notFound('Translation');
  await enqueueRun(ctx, { translationId, run, organizationId });
}
