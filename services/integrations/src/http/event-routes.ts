import { integrationEvent, integrationEventDetail, list } from '@quire/contract';
import { httpError, listEnvelope, listQuerySchema, route, type Route } from '@quire/http';
import type { IntegrationsContext } from '../domain/context';
import { clearDevMode, setDevMode } from '../domain/dev';
import { findEvent, listEvents } from '../domain/events';
import { loadOwnedIntegration } from '../domain/installations';
import { presentEvent, presentEventDetail } from '../presenters/event-presenter';
import { devModeBody, eventParams } from './installation-schemas';
import { INTEGRATION_PATH as INTEGRATION, integrationParams } from './integration-schemas';

/**
 * What the integration's developers see and do (admins of its owner organization): its events
 * with their traces (what GitBook's `gitbook tail` reads), and dev mode (`gitbook dev`).
 */
export function eventRoutes(ctx: IntegrationsContext): Route[] {
  return [
    route({
      method: 'get',
      path: `${INTEGRATION}/events`,
      summary: "List an integration's events, newest first (admins of its organization)",
      response: list(integrationEvent),
      params: integrationParams,
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => {
        const integration = await loadOwnedIntegration(ctx, caller, params.integrationName, "read the integration's events");
        const page = await listEvents(ctx, integration._id, query);
        return listEnvelope(page.items.map(presentEvent), page.count, page.next);
      },
    }),

    route({
      method: 'get',
      path: `${INTEGRATION}/events/:eventId`,
      summary: 'Get an integration event with its trace (the logs of its delivery)',
      response: integrationEventDetail,
      params: eventParams,
      handler: async ({ caller, params }) => {
        const integration = await loadOwnedIntegration(ctx, caller, params.integrationName, "read the integration's events");
        const event = await findEvent(ctx, integration._id, params.eventId);
        if (!event) throw httpError.notFound('Event');
        return presentEventDetail(event);
      },
    }),

    route({
      method: 'put',
      path: `${INTEGRATION}/dev`,
      summary:
        "Turn dev mode on: the integration's events are POSTed to the tunnel (its owner organization's only, unless `all`) " +
        'as its script would get them, signed with X-Quire-Delivery-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> ' +
        "keyed with the integration's signing secret",
      params: integrationParams,
      body: devModeBody,
      handler: async ({ caller, params, body }) => {
        const integration = await loadOwnedIntegration(ctx, caller, params.integrationName, 'turn dev mode on');
        await setDevMode(ctx, integration, body);
      },
    }),

    route({
      method: 'delete',
      path: `${INTEGRATION}/dev`,
      summary: "Turn dev mode off: the integration's events go to its published script again",
      params: integrationParams,
      handler: async ({ caller, params }) => {
        const integration = await loadOwnedIntegration(ctx, caller, params.integrationName, 'turn dev mode off');
        await clearDevMode(ctx, integration);
      },
    }),
  ];
}
