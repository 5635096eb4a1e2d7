/**
 * Guest side. Error stacks as V8 writes them, which scripts written for Workers expect:
 * QuickJS's `stack` holds the frames alone, so @gitbook/runtime's `console.error(error.stack)`
 * would log no message. QuickJS-ng implements V8's stack trace API (Error.prepareStackTrace),
 * which is the hook used here; a script may still set its own, which then takes over.
 *
 * The same hook sees every error the engine creates, among them the `out of memory` it throws
 * when the run's memory limit is hit: the host is told, and ends the run, as Workers do, even if
 * the script catches the error.
 */
import { host } from './host';

interface CallSite {
  getFunctionName(): string | null;
  getFileName(): string | undefined;
  getLineNumber(): number;
  getColumnNumber(): number;
  isNative(): boolean;
}
type PrepareStackTrace = (error: unknown, sites: CallSite[]) => unknown;

function header(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message ? `${error.name}: ${error.message}` : error.name;
}

function frame(site: CallSite): string {
  const where = site.isNative() ? 'native' : `${site.getFileName()}:${site.getLineNumber()}:${site.getColumnNumber()}`;
  return `    at ${site.getFunctionName() || '<anonymous>'} (${where})`;
}

let scriptHook: PrepareStackTrace | undefined;

const prepare: PrepareStackTrace = (error, sites) => {
  if (error instanceof Error && error.name === 'InternalError' && error.message === 'out of memory') host.memoryExceeded();
  if (scriptHook) return scriptHook(error, sites);
  try {
    return [header(error), ...sites.map(frame)].join('\n');
  } catch {
    return sites.map(frame).join('\n');
  }
};

// The engine reads the hook through Error's own native accessor: ours goes in there, and the
// property scripts see becomes a plain slot for theirs.
const native = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
native?.set?.call(Error, prepare);
Object.defineProperty(Error, 'prepareStackTrace', {
  configurable: true,
  enumerable: false,
  get: () => scriptHook,
  set: (hook: unknown) => void (scriptHook = typeof hook === 'function' ? (hook as PrepareStackTrace) : undefined),
});
