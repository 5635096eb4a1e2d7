import { workerData, type MessagePort } from 'node:worker_threads';
import { getEngine, useCompiledWasm, type CompiledWasm } from './engine';
import { useGuestBundle } from './guest-bundle';
import { runScript } from './run';
import type { HostFetch, RunResult } from './types';
import type { FetchAnswer, ToMain, ToWorker, WorkerTask } from './worker-protocol';

/**
 * Entry of a script worker thread (pool.ts runs it through piscina): one whole run per task, the
 * QuickJS module and its sandboxes living in this thread only. The main thread handed over the
 * compiled engine and the guest bundle, and answers the script's fetches (its egress rules stay
 * in one place): requests and answers cross the task's port.
 */
const shared = workerData as { wasmModule: CompiledWasm; guestBundle: string } | undefined;
if (shared) {
  useCompiledWasm(shared.wasmModule);
  useGuestBundle(shared.guestBundle);
  // Instantiated now, while the worker waits for its first task, not inside that task's budget.
  getEngine().catch(() => undefined);
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The script's fetch, done by the main thread: the Request's parts go over `port`, the answer comes back. */
function fetchThrough(port: MessagePort): { hostFetch: HostFetch; close(): void } {
  const pending = new Map<number, { resolve: (answer: FetchAnswer) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  port.on('message', (message: ToWorker) => {
    const call = pending.get(message.id);
    if (!call) return;
    pending.delete(message.id);
    if (message.type === 'error') call.reject(new Error(message.message));
    else call.resolve(message.answer);
  });
  const send = (message: ToMain, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const hostFetch: HostFetch = async (request) => {
    const id = nextId++;
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const answered = new Promise<FetchAnswer>((resolve, reject) => pending.set(id, { resolve, reject }));
    const onAbort = () => {
      pending.get(id)?.reject(new Error('the request was aborted'));
      pending.delete(id);
      send({ type: 'abort', id });
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    send({ type: 'fetch', id, method: request.method, url: request.url, headers: [...request.headers], body }, body ? [body.buffer as ArrayBuffer] : []);
    try {
      const answer = await answered;
      return new Response(NULL_BODY.has(answer.status) ? null : answer.body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
    } finally {
      request.signal.removeEventListener('abort', onAbort);
    }
  };
  return {
    hostFetch,
    close: () => {
      for (const call of pending.values()) call.reject(new Error('the run is over'));
      pending.clear();
      port.close();
    },
  };
}

export default async function runTask(task: WorkerTask): Promise<RunResult> {
  task.port.postMessage({ type: 'started' } satisfies ToMain);
  const remote = fetchThrough(task.port);
  try {
    return await runScript({ ...task.input, cpuWatch: task.cpuWatch, hostFetch: task.canFetch ? remote.hostFetch : undefined });
  } finally {
    remote.close();
  }
}
