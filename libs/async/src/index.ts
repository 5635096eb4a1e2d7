export { createEventBus, type DomainEvent, type EventBus, type EventSubscription } from './events';
export { createJobQueue, type JobQueue, type JobState } from './jobs';
