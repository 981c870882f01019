// @ts-check
/** The service worker: owns the native port and wires the extension's pieces to it. */
import { NativeChannel } from "./native.js";
import { registerPanelRelay } from "./panel.js";
import { keepaliveState, registerKeepalive } from "./keepalive.js";
import { registerTabHandlers } from "./tabs.js";
import { dispatchStats, registerDispatch } from "./dispatch.js";
import { attachedTabs } from "./cdp.js";
import { registerSnapshotHandler, snapshotDiagnostics } from "./snapshot.js";
import { registerAgentTabHandlers } from "./agent_tabs.js";
import { registerThumbnailHandler } from "./thumbnail.js";
import { registerLoadErrors } from "./load_errors.js";
import { registerMcpBadge } from "./mcp_badge.js";

const channel = new NativeChannel();

channel.handle("echo", async (params) => ({ ...params, echoed_at: Date.now() }));
registerTabHandlers(channel);
registerDispatch(channel);
registerAgentTabHandlers(channel);
registerPanelRelay(channel);
registerSnapshotHandler(channel);
registerThumbnailHandler(channel);
registerKeepalive();
registerLoadErrors();
registerMcpBadge(channel);

chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});

/** A handle for tests, the benchmarks and the side panel's diagnostics. */
const api = {
  channel,
  state: () => channel.state,
  /** @param {string} method @param {Record<string, any>=} params */
  call: (method, params) => channel.call(method, params || {}),
  ping: () => channel.ping(),
  dispatch: dispatchStats,
  debuggerTabs: () => attachedTabs(),
  reconnect: () => channel.disconnect(),
  snapshot: snapshotDiagnostics,
  keepalive: () => keepaliveState(),
};
/** @type {{waymark?: typeof api}} */ (globalThis).waymark = api;

channel.connect();
