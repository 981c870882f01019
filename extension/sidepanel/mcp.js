// @ts-check
/**
 * The panel's MCP section. An MCP client (`waymark mcp`) that attaches to this browser must be
 * allowed by the user here first, by name, for this browser session; while clients are in
 * control the section says so, and Stop cuts every one of them off at once. The host holds
 * the state (host/mcp_access.py); the panel follows it with the streaming call `mcp.watch`.
 */
import { byId, h } from "./dom.js";

/** @typedef {{pending: {request_id: string, client: string}[], active: string[]}} McpState */

export class McpView {
  /** @param {{client: import("./host_client.js").HostClient}} deps */
  constructor({ client }) {
    this.client = client;
    this.box = byId("mcp-clients");
    /** @type {import("./host_client.js").CallHandle|null} */
    this.watch = null;
  }

  /** (Re)start following the host's MCP clients: call it whenever a host (re)connects. */
  start() {
    this.watch?.cancel();
    const handle = this.client.start("mcp.watch", {}, {
      onNotify: (name, data) => { if (name === "clients") this.render(/** @type {McpState} */ (data)); },
    });
    this.watch = handle;
    // The host went away (or the worker restarted): nothing is pending from a host that is gone.
    handle.done.catch(() => { if (this.watch === handle) this.render({ pending: [], active: [] }); });
  }

  /** @param {McpState} state */
  render(state) {
    const pending = state.pending || [];
    const active = state.active || [];
    const requests = pending.map((request) => h("div", { class: "mcp-request", role: "alertdialog", "aria-label": `MCP client ${request.client}` },
      h("p", {}, h("strong", { text: request.client }), " wants to control this browser through MCP. It can act only in tabs it opens; destructive actions still ask you."),
      h("div", { class: "row" },
        h("span", { class: "spacer" }),
        h("button", { type: "button", class: "secondary", text: "Deny", onclick: () => this.decide(request.request_id, false) }),
        h("button", { type: "button", text: "Allow for this session", onclick: () => this.decide(request.request_id, true) }))));
    const control = active.length
      ? h("div", { class: "mcp-active row", role: "status" },
        h("span", { text: `${active.join(", ")} ${active.length > 1 ? "are" : "is"} in control through MCP` }),
        h("span", { class: "spacer" }),
        h("button", { type: "button", class: "danger small", text: "Stop", onclick: () => this.stop() }))
      : null;
    this.box.replaceChildren(...requests, ...(control ? [control] : []));
    this.box.hidden = !requests.length && !control;
  }

  /** @param {string} requestId @param {boolean} allow */
  async decide(requestId, allow) {
    await this.client.call("mcp.decide", { request_id: requestId, allow }).catch(() => {});
  }

  async stop() {
    await this.client.call("mcp.stop").catch(() => {});
  }
}
