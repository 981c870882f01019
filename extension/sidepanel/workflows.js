// @ts-check
/**
 * Workflows in the agent view: a finished successful run offers "Save as workflow", and every
 * saved workflow is listed with its parameters and a Run button that replays it in the agent
 * timeline (host/rpc/workflows.py: workflow.save, workflow.list, workflow.run).
 */
import { errorMessage } from "../shared/errors.js";
import { byId, h } from "./dom.js";
import { loadSchedules, scheduleBlock } from "./schedules.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {import("./agent.js").AgentView} AgentView */
/** @typedef {import("./agent_types.js").RunSummary} RunSummary */
/**
 * A saved workflow as `workflow.list` lists it (or the reason its file does not load).
 * `reviewed: false`: an MCP client saved it; it runs only once the user has reviewed it here.
 * @typedef {{name: string, task?: string, description?: string, steps?: number, error?: string, reviewed?: boolean,
 *   parameters?: Array<{name: string, description?: string, default?: string|null}>, answer_fields?: string[]}} WorkflowRow
 */

/** A workflow name from a task: lowercase words joined by dashes (the host checks the name). */
export function suggestedName(/** @type {string} */ task) {
  return task.toLowerCase().replace(/\{\{[^}]*\}\}/g, "").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "workflow";
}

export class WorkflowsView {
  /** @param {{client: HostClient, agent: AgentView}} deps */
  constructor(deps) {
    this.client = deps.client;
    this.agent = deps.agent;
    this.list = byId("workflow-list");
    this.note = byId("workflow-note");
    /** @type {Map<string, import("./schedules.js").ScheduleRow>} */
    this.schedules = new Map();
    this.agent.onSaveable = (summary) => this.saveForm(summary);
  }

  /** Load the saved workflows from the host. */
  async refresh() {
    try {
      const data = await this.client.call("workflow.list", {});
      this.schedules = await loadSchedules(this.client);
      this.render(/** @type {WorkflowRow[]} */ (data.workflows || []));
    } catch (e) {
      this.note.textContent = `Could not list the workflows: ${errorMessage(e)}`;
    }
  }

  /** @param {WorkflowRow[]} rows */
  render(rows) {
    this.note.textContent = rows.length ? "" : "No saved workflows yet: save a run that succeeded.";
    this.list.replaceChildren(...rows.map((row) => this.item(row)));
  }

  /** @param {WorkflowRow} row */
  item(row) {
    if (row.error) return h("li", { class: "workflow bad", dataset: { name: row.name } }, h("strong", { text: row.name }), h("p", { class: "reason", text: row.error }));
    const inputs = (row.parameters || []).map((p) => h("input", { type: "text", "aria-label": p.name, placeholder: p.name, value: p.default ?? "", dataset: { param: p.name } }));
    if (row.reviewed === false) return this.review(row);
    const run = h("button", { type: "button", class: "small run", onclick: () => {
      /** @type {Record<string, string>} */
      const values = {};
      for (const input of inputs) values[String(input.dataset.param)] = input.value;
      void this.agent.replay(row.name, values);
    } }, "Run");
    return h("li", { class: "workflow", dataset: { name: row.name } },
      h("div", { class: "row" }, h("strong", { text: row.name }), h("span", { class: "muted", text: ` · ${row.steps} steps` }), h("span", { class: "spacer" }), run),
      h("p", { class: "muted", text: row.description || row.task || "" }),
      inputs.length ? h("div", { class: "params" }, inputs) : null,
      scheduleBlock(this.client, row.name, this.schedules.get(row.name), row.answer_fields || [], () => this.refresh()));
  }

  /**
   * A workflow an MCP client saved: what it does, and the user's review before it may run or be
   * offered to MCP clients as a tool (workflow.review, a method clients may not call).
   * @param {WorkflowRow} row
   */
  review(row) {
    const approve = h("button", { type: "button", class: "small review", onclick: async () => {
      try {
        await this.client.call("workflow.review", { name: row.name });
        await this.refresh();
      } catch (e) {
        this.note.textContent = `Could not mark ${row.name} reviewed: ${errorMessage(e)}`;
      }
    } }, "I reviewed it: let it run");
    return h("li", { class: "workflow unreviewed", dataset: { name: row.name } },
      h("div", { class: "row" }, h("strong", { text: row.name }), h("span", { class: "muted", text: ` · ${row.steps} steps · saved by an MCP client` }),
        h("span", { class: "spacer" }), approve),
      h("p", { class: "muted", text: `Task: ${row.task || ""}` }),
      h("p", { class: "muted", text: `Its description: ${row.description || "(none)"}` }),
      h("p", { class: "muted", text: `Read its steps first: waymark workflow show ${row.name}` }));
  }

  /**
   * The "Save as workflow" form under a successful run's summary.
   * @param {RunSummary} summary
   */
  saveForm(summary) {
    const name = h("input", { type: "text", "aria-label": "Workflow name", value: suggestedName(summary.task || "") });
    const status = h("p", { class: "saved", role: "status" });
    const form = h("form", { class: "row save-workflow", onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      try {
        const saved = await this.client.call("workflow.save", { run_id: summary.run_id, name: name.value.trim() });
        const workflow = /** @type {{name: string}} */ (saved.workflow);
        status.textContent = `Saved as workflow ${workflow.name}.`;
        form.querySelector("button")?.setAttribute("disabled", "");
        await this.refresh();
      } catch (err) {
        status.textContent = `Not saved: ${errorMessage(err)}`;
      }
    } }, name, h("button", { type: "submit", class: "small" }, "Save as workflow"));
    return h("div", { class: "workflow-save" }, form, status);
  }
}
