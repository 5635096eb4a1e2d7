import { list, translation } from '@quire/contract';
import { created, route, type Route } from '@quire/http';
import type { InsightsContext } from '../kernel';
import { createTranslationBody, organizationParams, translationListQuery, translationParams, updateTranslationBody } from './translation-schemas';
import { createTranslation, deleteTranslation, getTranslation, listTranslations, runTranslation, updateTranslationInstructions } from './translations';

const TRANSLATIONS = '/v1/orgs/:organizationId/translations';
const TRANSLATION = `${TRANSLATIONS}/:translationId`;

/** spec "Translations": translations of an organization's spaces into other languages, and their runs. */
export function translationRoutes(ctx: InsightsContext): Route[] {
  return [
    route({
      method: 'get',
      path: TRANSLATIONS,
      summary: "List the organization's translations the caller can read, newest first",
      response: list(translation),
      params: organizationParams,
      query: translationListQuery,
      handler: ({ caller, params, query }) => listTranslations(ctx, caller, params.organizationId, query),
    }),

    route({
      method: 'post',
      path: TRANSLATIONS,
      summary: 'Create a translation of a space into another language (organization admins); it runs with POST …/run',
      response: translation,
      status: 201,
      params: organizationParams,
      body: createTranslationBody,
      handler: async ({ caller, params, body }) => {
        const made = await createTranslation(ctx, caller, params.organizationId, body);
        return created(made.urls.location, made);
      },
    }),

    route({
      method: 'get',
      path: TRANSLATION,
      summary: 'Get a translation with the status and stats of its runs',
      response: translation,
      params: translationParams,
      handler: ({ caller, params }) => getTranslation(ctx, caller, params.organizationId, params.translationId),
    }),

    route({
      method: 'put',
      path: TRANSLATION,
      summary: "Update a translation's instructions, the guidance its provider gets (organization admins)",
      response: translation,
      params: translationParams,
      body: updateTranslationBody,
      handler: ({ caller, params, body }) => updateTranslationInstructions(ctx, caller, params.organizationId, params.translationId, body.instructions),
    }),

    route({
      method: 'delete',
      path: TRANSLATION,
      summary: 'Delete a translation (organization admins); its target space stays. 204 also when there is none',
      params: translationParams,
      handler: ({ caller, params }) => deleteTranslation(ctx, caller, params.organizationId, params.translationId),
    }),

    route({
      method: 'post',
      path: `${TRANSLATION}/run`,
      summary:
        'Run a translation (organization admins): the pages whose source changed since they were translated are translated again and the target space updated. ' +
        'Queued: status and stats tell its progress',
      params: translationParams,
      handler: ({ caller, params }) => runTranslation(ctx, caller, params.organizationId, params.translationId),
    }),
  ];
}
