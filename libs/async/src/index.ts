export { createEventBus, type DomainEvent, type EventBus, type EventSubscription } from './events';
export { createJobQueue, queuePerInstance, type JobQueue, type JobState, type QueueHost, type QueuePerInstance, type WorkOptions } from './jobs';
export { withTenantSlot, type Fairness } from './fairness';
export { EVENT_TYPES, type EventType } from './event-types';
