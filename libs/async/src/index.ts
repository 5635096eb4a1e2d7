export {
  createEvent,
  createEventBus,
  defineEvent,
  type DomainEvent,
  type EventBus,
  type EventDefinition,
  type EventInput,
  type EventOf,
  type EventSubscription,
  type PublishOptions,
  type SubscribeOptions,
} from './events';
export { createJobQueue, jobLockMs, queuePerInstance, type JobQueue, type JobState, type QueueHost, type QueuePerInstance, type WorkOptions } from './jobs';
export { withTenantSlot, type Fairness } from './fairness';
export { EVENTS, SITE_VIEWS_PER_EVENT } from './event-types';
