import { eventPayloadJson, type IntegrationEventDoc } from '../db/models';

/** spec "IntegrationEvent" (GitBook IntegrationEvent): `status` only once delivered or given up. */
export function presentEvent(event: IntegrationEventDoc) {
  return {
    id: event._id,
    integrationId: event.integrationName,
    installationId: event.installationId,
    createdAt: event.createdAt.toISOString(),
    payload: eventPayloadJson.read(event.payload),
    ...(event.status === 'pending' ? {} : { status: event.status }),
  };
}

/** spec "Event detail": the event and its trace (the script's console lines, or the tunnel delivery's). */
export function presentEventDetail(event: IntegrationEventDoc) {
  return {
    event: presentEvent(event),
    trace: {
      logs: event.logs.map((log) => ({ message: log.message, timestamp: new Date(log.timestamp).toISOString(), level: log.level })),
    },
  };
}
