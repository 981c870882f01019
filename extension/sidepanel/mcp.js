// @ts-check
/**
 * The panel's MCP section. An MCP client (`waymark mcp`) that attaches to this browser must be
 * allowed by the user here first, by name, for this browser session; while clients are in
 * control the section says so, and Stop cuts every one of them off at once. The host holds
 * the state (host/mcp_access.py); the panel follows it with the streaming call `mcp.watch`.
 * Destructive actions of an allowed client ("Place order") are confirmed here too, and the user
 * shares the panel's tab with the clients (they otherwise act only in tabs they opened).
 */
import { byId, h } from "./dom.js";
import { stepEntry } from "./agent.js";

/**
 * A question waiting for the user: a client asking to connect, an allowed client asking before
 * a destructive action, or a question of an agent run a client started.
 * @typedef {{request_id: string, kind: "connect"|"confirm"|"ask", client: string, peer?: string, action_line?: string, reason?: string, question?: string}} McpQuestion
 * An action a client carried out, as the host noted it: a `step` event as agent mode's timeline
 * shows it (`intent` is the client's name).
 * @typedef {{step: number, intent: string, action_line: string, verdict: "passed"|"failed", reason: string, timing: Record<string, number>, at: number}} McpActivity
 * @typedef {{pending: McpQuestion[], active: string[], shared: number[], activity?: McpActivity[]}} McpState
 */

export class McpView {
  /** @param {{client: import("./host_client.js").HostClient, tab: import("./current_tab.js").CurrentTab}} deps */
  constructor({ client, tab }) {
    this.client = client;
    this.tab = tab;
    this.box = byId("mcp-clients");
    /** @type {McpState} */
    this.state = { pending: [], active: [], shared: [], activity: [] };
    tab.onChange(() => this.render(this.state));
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
    handle.done.catch(() => { if (this.watch === handle) this.render({ pending: [], active: [], shared: [] }); });
  }

  /** @param {McpState} state */
  render(state) {
    this.state = state;
    const pending = state.pending || [];
    const active = state.active || [];
    const requests = pending.map((question) => (question.kind === "confirm" ? this.confirmation(question)
      : question.kind === "ask" ? this.question(question) : this.connection(question)));
    const control = active.length
      ? h("div", { class: "mcp-active row", role: "status" },
        h("span", { text: `${active.join(", ")} ${active.length > 1 ? "are" : "is"} in control through MCP` }),
        h("span", { class: "spacer" }),
        this.shareButton(state.shared || []),
        h("button", { type: "button", class: "danger small", text: "Stop", onclick: () => this.stop() }))
      : null;
    const activity = active.length && state.activity?.length
      ? h("ol", { class: "timeline mcp-log", "aria-label": "What MCP clients did" }, state.activity.slice().reverse().map(stepEntry))
      : null;
    this.box.replaceChildren(...requests, ...(control ? [control] : []), ...(activity ? [activity] : []));
    this.box.hidden = !requests.length && !control;
  }

  /** @param {McpQuestion} request  a client asking to control the browser */
  connection(request) {
    return h("div", { class: "mcp-request", role: "alertdialog", "aria-label": `MCP client ${request.client}` },
      h("p", {}, h("strong", { text: request.client }), " wants to control this browser through MCP. It can act only in tabs it opens; destructive actions still ask you."),
      // The name is the client's own claim; the process is what the host's socket says it is.
      h("p", { class: "muted mcp-peer", text: `It is ${request.peer || "a process the system did not name"}. Allowing it lasts while this connection stays open.` }),
      this.buttons(request, "Deny", "Allow for this session"));
  }

  /** @param {McpQuestion} request  an allowed client about to do something destructive */
  confirmation(request) {
    return h("div", { class: "mcp-request", role: "alertdialog", "aria-label": `Confirm for ${request.client}` },
      h("p", {}, h("strong", { text: request.client }), " wants to: ", h("code", { text: request.action_line || "" })),
      h("p", { class: "muted", text: request.reason || "" }),
      this.buttons(request, "Decline", "Allow once"));
  }

  /** @param {McpQuestion} request  a question of an agent run a client started (browser_run_task) */
  question(request) {
    const input = h("input", { type: "text", "aria-label": "Your answer" });
    const answer = (/** @type {string} */ text) => this.client.call("mcp.decide", { request_id: request.request_id, answer: text }).catch(() => {});
    return h("div", { class: "mcp-request", role: "alertdialog", "aria-label": `Question for ${request.client}` },
      h("p", {}, h("strong", { text: request.client }), "'s task asks: ", h("span", { class: "question", text: request.question || "" })),
      h("form", { class: "row", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); void answer(input.value.trim()); } },
        input,
        h("button", { type: "button", class: "secondary", text: "Skip", onclick: () => void answer("") }),
        h("button", { type: "submit", text: "Answer" })));
  }

  /** @param {McpQuestion} request @param {string} no @param {string} yes */
  buttons(request, no, yes) {
    return h("div", { class: "row" },
      h("span", { class: "spacer" }),
      h("button", { type: "button", class: "secondary", text: no, onclick: () => this.decide(request.request_id, false) }),
      h("button", { type: "button", text: yes, onclick: () => this.decide(request.request_id, true) }));
  }

  /** @param {number[]} shared  the button that shares the panel's tab with the clients, or takes it back */
  shareButton(shared) {
    const tabId = this.tab.tabId;
    if (tabId === null) return null;
    const isShared = shared.includes(tabId);
    return h("button", {
      type: "button", class: "secondary small", text: isShared ? "Stop sharing this tab" : "Share this tab",
      onclick: () => this.client.call("mcp.share", { tab_id: tabId, shared: !isShared }).catch(() => {}),
    });
  }

  /** @param {string} requestId @param {boolean} allow */
  async decide(requestId, allow) {
    await this.client.call("mcp.decide", { request_id: requestId, allow }).catch(() => {});
  }

  async stop() {
    await this.client.call("mcp.stop").catch(() => {});
  }
}
