import { eventPayloadJson } from '../db/models';
import type { SettledEventDoc } from '../domain/events';

/** spec "IntegrationEvent" (GitBook IntegrationEvent), of a settled event (listEvents, findEvent). */
export function presentEvent(event: SettledEventDoc) {
  return {
    id: event._id,
    integrationId: event.integrationName,
    installationId: event.installationId,
    createdAt: event.createdAt.toISOString(),
    payload: eventPayloadJson.read(event.payload),
    status: event.status,
  };
}

/** spec "Event detail": the event and its trace (the script's console lines, or the tunnel delivery's). */
export function presentEventDetail(event: SettledEventDoc) {
  return {
    event: presentEvent(event),
    trace: {
      logs: event.logs.map((log) => ({ message: log.message, timestamp: new Date(log.timestamp).toISOString(), level: log.level })),
    },
  };
}
