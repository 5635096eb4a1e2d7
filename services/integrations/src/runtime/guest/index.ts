/**
 * Guest side: the entry of the bundle each sandbox evaluates before the script (guest-bundle.ts).
 * Runs inside QuickJS, never in node. Order matters: the host's functions are taken first, the
 * polyfills come before the code that uses them at load time.
 *
 * Its exports are the host's way in (host-bridge.ts takes them, then clears the global).
 */
import './host';
import './errors';
import './globals';
import './body';
import './console';
import './timers';
import './crypto';
import './fetch';

export { dispatch } from './dispatch';
export { settleFetch } from './fetch';
export { fireTimer } from './timers';
