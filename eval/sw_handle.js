// @ts-check
/**
 * The diagnostic service-worker entry: runs the extension's own sw/main.js, then installs
 * `globalThis.waymark` for the tests and benchmarks that evaluate code in the worker.
 * eval/sw_handle.py copies it into a copy of the extension as sw/diagnostic_main.js; the
 * folder users load never contains it.
 */
import { channel } from "./main.js";
import { keepaliveState } from "./keepalive.js";
import { dispatchStats } from "./dispatch.js";
import { attachedTabs, setIdleDetachMs } from "./cdp.js";
import { snapshotDiagnostics } from "./snapshot.js";
import { tickSchedules } from "./schedules.js";
import { TabWatcher } from "./settle.js";

const api = {
  channel,
  state: () => channel.state,
  /** @param {string} method @param {Record<string, any>=} params */
  call: (method, params) => channel.call(method, params || {}),
  ping: () => channel.ping(),
  dispatch: dispatchStats,
  debuggerTabs: () => attachedTabs(),
  /** @param {number} ms */
  setIdleDetachMs: (ms) => setIdleDetachMs(ms),
  reconnect: () => channel.disconnect(),
  snapshot: snapshotDiagnostics,
  keepalive: () => keepaliveState(),
  /** What the schedule alarm does, at a time the test chooses. @param {string=} now */
  tickSchedules: (now) => tickSchedules(channel, now ? { now } : {}),
  /** Watch a tab as an action does, for a settle the test starts. @param {number} tabId */
  watch: (tabId) => new TabWatcher(tabId),
};
/** @type {{waymark?: typeof api}} */ (globalThis).waymark = api;
