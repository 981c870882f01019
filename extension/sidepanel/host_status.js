// @ts-check
/**
 * The host status line and its actionable problems: the host is not installed (the exact
 * command to run), the host and extension versions disagree, or the configured provider
 * cannot be reached or refuses the key. Each problem says what to do next.
 */
import { PROTOCOL_VERSION } from "../shared/protocol.js";
import { byId, clear, h } from "./dom.js";

/** @typedef {import("../sw/native.js").ConnectionState} ConnectionState */
/** @typedef {import("../shared/protocol_types.js").ErrorInfo} ErrorInfo */
/** @typedef {{title: string, detail?: string, command?: string, help?: string, action?: {label: string, run: () => void}}} Problem */

export const INSTALL_COMMAND = "./install_host.sh";
const INSTALL_WHERE = "Run this in your Waymark folder (the one holding the extension/ folder you loaded), then reopen this panel:";
/** Where a connection problem is explained at length: the panel cannot open the checkout's README itself. */
export const TROUBLESHOOTING = "More help: the Troubleshooting section of README.md in your Waymark folder.";

/**
 * What is wrong with the connection, if anything, and how to fix it.
 * @param {ConnectionState} state
 * @param {string} extensionVersion
 * @returns {Problem|null}
 */
export function connectionProblem(state, extensionVersion) {
  if (state.status === "connected") {
    if (state.protocol !== PROTOCOL_VERSION) {
      return { title: `The host speaks protocol ${state.protocol}; this extension speaks ${PROTOCOL_VERSION}.`, detail: "Update both from the same checkout and re-run the installer:", command: INSTALL_COMMAND };
    }
    if (state.hostVersion && state.hostVersion !== extensionVersion) {
      return { title: `Version mismatch: host ${state.hostVersion}, extension ${extensionVersion}.`, detail: "Re-run the installer from the checkout this extension was loaded from, then reload the extension:", command: INSTALL_COMMAND };
    }
    return null;
  }
  const error = state.error;
  if (!error) return null;
  switch (error.code) {
    case "host_not_installed":
      return { title: "The Waymark host is not installed for this browser.", detail: INSTALL_WHERE, command: INSTALL_COMMAND, help: TROUBLESHOOTING };
    case "host_forbidden":
      return { title: "The installed host does not allow this extension's ID.", detail: INSTALL_WHERE, command: INSTALL_COMMAND, help: TROUBLESHOOTING };
    case "host_exited":
      return { title: "The Waymark host started but exited at once.", detail: "Check the install and the host log with:", command: ".venv/bin/waymark doctor", help: TROUBLESHOOTING };
    default:
      return { title: `The host is not reachable (${error.code}).`, detail: `${error.message}${state.retryInMs ? ` Retrying in ${Math.round(state.retryInMs / 100) / 10} s.` : ""}`, help: TROUBLESHOOTING };
  }
}

/**
 * What to do about a provider failure reported by chat, agent or a settings test.
 * @param {ErrorInfo} error
 * @param {() => void} openSettings
 * @returns {Problem|null}
 */
export function providerProblem(error, openSettings) {
  const settings = { label: "Open settings", run: openSettings };
  switch (error.code) {
    case "no_chat_provider":
    case "provider_not_configured":
      return { title: "No model is configured for this.", detail: error.message, action: settings };
    case "provider_unreachable":
      return { title: "The model provider cannot be reached.", detail: `${error.message} Is the server running and the base URL right?`, action: settings };
    case "provider_auth":
      return { title: "The provider refused the API key.", detail: `${error.message} Enter a valid key in settings.`, action: settings };
    case "provider_rate_limited":
      return { title: "The provider is rate-limiting requests.", detail: error.message };
    case "provider_quota":
      return { title: "The provider account has no quota or credit left.", detail: `${error.message} Check the account's plan and billing; retrying will not help.` };
    case "provider_timeout":
      return { title: "The provider did not answer in time.", detail: error.message };
    default:
      return null;
  }
}

export class HostStatus {
  /** @param {{openSettings: () => void}} options */
  constructor(options) {
    this.openSettings = options.openSettings;
    this.extensionVersion = chrome.runtime.getManifest().version;
    /** @type {ConnectionState|null} */
    this.state = null;
    /** @type {Problem|null} */
    this.provider = null;
  }

  /** @param {ConnectionState} state */
  update(state) {
    this.state = state;
    const pill = byId("status");
    pill.dataset.status = state.status;
    // Users need to know whether it works, not the version: that stays in the tooltip.
    pill.textContent = state.status === "connected" ? "connected" : state.status === "connecting" ? "connecting…" : "host offline";
    pill.title = state.status === "connected" ? `Waymark host ${state.hostVersion}` : "";
    this.render();
  }

  /** @param {ErrorInfo|null} error  a provider failure to show, or null once things work again */
  reportProvider(error) {
    this.provider = error ? providerProblem(error, this.openSettings) : null;
    this.render();
  }

  get connected() {
    return this.state?.status === "connected";
  }

  /** What is wrong with the host connection now, if anything (null while connecting or connected). */
  get connectionProblem() {
    return this.state && connectionProblem(this.state, this.extensionVersion);
  }

  render() {
    const box = byId("host-problem");
    const problem = this.connectionProblem || this.provider;
    box.hidden = !problem;
    clear(box);
    if (!problem) return;
    const command = problem.command;
    const parts = [
      h("p", { class: "problem-title", text: problem.title }),
      problem.detail ? h("p", { class: "problem-detail", text: problem.detail }) : null,
      command ? h("div", { class: "command" },
        h("code", { id: "install-command", text: command }),
        h("button", { type: "button", class: "small", onclick: () => navigator.clipboard?.writeText(command).catch(() => {}) }, "Copy")) : null,
      problem.action ? h("button", { type: "button", class: "small", onclick: problem.action.run }, problem.action.label) : null,
      problem.help ? h("p", { class: "problem-help muted small", text: problem.help }) : null,
    ];
    for (const part of parts) if (part) box.append(part);
  }
}
