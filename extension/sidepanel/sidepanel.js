// @ts-check
/** Side panel: shows the host connection and, when it is broken, how to fix it. */

/** @typedef {import("../sw/native.js").ConnectionState} ConnectionState */

const INSTALL_COMMAND = "./install_host.sh   # run in your Waymark checkout, then reload this panel";

/** @param {string} id */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el;
}

/** @param {ConnectionState} state */
export function renderState(state) {
  const status = byId("status");
  status.dataset.status = state.status;
  status.textContent = state.status === "connected" ? `host ${state.hostVersion}` : state.status;
  const problem = byId("host-problem");
  const error = state.status === "connected" ? null : state.error;
  problem.hidden = !error;
  if (!error) return;
  const text = byId("host-problem-text");
  const fix = byId("host-problem-fix");
  if (error.code === "host_not_installed") {
    text.textContent = "The Waymark host is not installed for this browser. Install it with:";
    fix.textContent = INSTALL_COMMAND;
  } else if (error.code === "host_forbidden") {
    text.textContent = "The installed host does not allow this extension's ID. Re-run the installer:";
    fix.textContent = INSTALL_COMMAND;
  } else {
    text.textContent = `The host is not reachable (${error.code}): ${error.message}`;
    fix.textContent = state.retryInMs ? `retrying in ${Math.round(state.retryInMs / 100) / 10} s` : "";
  }
}

const port = chrome.runtime.connect({ name: "panel" });
port.onMessage.addListener((msg) => {
  if (msg.kind === "state") renderState(msg.state);
});
