// @ts-check
/** The service worker: owns the native port and wires the extension's pieces to it. */
import { NativeChannel } from "./native.js";
import { registerPanelRelay } from "./panel.js";
import { registerKeepalive } from "./keepalive.js";
import { registerTabHandlers } from "./tabs.js";
import { registerDispatch } from "./dispatch.js";
import { registerSnapshotHandler } from "./snapshot.js";
import { registerAgentTabHandlers } from "./agent_tabs.js";
import { registerLoadErrors } from "./load_errors.js";
import { registerMcpBadge } from "./mcp_badge.js";
import { registerNetGate } from "./net_gate.js";
import { registerSchedules } from "./schedules.js";
import { registerRecorder } from "./recorder.js";

/** Exported so the diagnostic build (eval/sw_handle.js) can reach it; production installs no global. */
export const channel = new NativeChannel();

channel.handle("echo", async (params) => ({ ...params, echoed_at: Date.now() }));
registerTabHandlers(channel);
registerDispatch(channel);
registerAgentTabHandlers(channel);
registerPanelRelay(channel);
registerSnapshotHandler(channel);
registerKeepalive();
registerLoadErrors();
registerMcpBadge(channel);
registerNetGate();
registerSchedules(channel);
registerRecorder();

chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});

channel.connect();
