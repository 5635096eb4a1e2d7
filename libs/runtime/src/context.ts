import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from './principal';

/** What travels with one request through HTTP handlers, gRPC calls and logs. */
export interface RequestContext {
  requestId: string;
  principal?: Principal;
  /** In a gRPC handler: the service that called, as its signed caller assertion names it. */
  callingService?: string;
  /** In an HTTP handler: the path asked (the list cursors it writes open pages at this path only). */
  path?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return requestContext.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
