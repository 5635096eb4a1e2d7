export { createEventBus, type DomainEvent, type EventBus, type EventSubscription } from './events';
export { createJobQueue, type JobQueue, type JobState } from './jobs';
export { EVENT_TYPES, type EventType } from './event-types';
