// @ts-check
/**
 * Recording a demonstration in the Workflows view: Record starts watching the panel's tab
 * (extension/sw/recorder.js), Stop ends it and shows the recorded steps as the timeline shows a
 * run, each with the checks proposed from what the page showed afterwards
 * (host/workflows/record.py, workflow.record_draft). The user names the parameters, keeps or
 * drops each check, marks a typed value secret, names the workflow and saves it
 * (workflow.record_save, which refuses a step that changed the page without a check). Mark the
 * answer makes the text selected on the page, or the next element clicked there, the answer the
 * workflow reads; the user names its field in the review.
 */
import { errorMessage } from "../shared/errors.js";
import { byId, h } from "./dom.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {import("./current_tab.js").CurrentTab} CurrentTab */
/**
 * A step of a recording as the host drafts it.
 * @typedef {{intent: string, action: Record<string, unknown>, target?: Record<string, unknown>, changed?: boolean,
 *   checks: Array<{check: Record<string, unknown>, says: string}>, value?: string, param?: string, secret?: string,
 *   secret_origin?: string, frame_origin?: string, answer?: {field: string, text: string}, destructive?: string|null}} DraftStep
 * @typedef {{start_url: string, name: string, task: string, steps: DraftStep[]}} Draft
 */

/**
 * Ask the service worker's recorder.
 * @param {string} kind @param {Record<string, unknown>} [fields]
 * @returns {Promise<Record<string, any>>}
 */
async function ask(kind, fields = {}) {
  const answer = await chrome.runtime.sendMessage({ kind, ...fields });
  if (!answer?.ok) throw new Error(answer?.error || "the recorder did not answer");
  return answer.data;
}

export class RecorderView {
  /** @param {{client: HostClient, tab: CurrentTab, onSaved: () => void}} deps */
  constructor(deps) {
    this.client = deps.client;
    this.tab = deps.tab;
    this.onSaved = deps.onSaved;
    this.record = /** @type {HTMLButtonElement} */ (byId("record-start"));
    this.stop = /** @type {HTMLButtonElement} */ (byId("record-stop"));
    this.mark = /** @type {HTMLButtonElement} */ (byId("record-mark"));
    this.status = byId("record-status");
    this.review = byId("record-review");
    this.record.addEventListener("click", () => void this.start());
    this.stop.addEventListener("click", () => void this.finish());
    this.mark.addEventListener("click", () => void this.markAnswer());
    chrome.runtime.onMessage.addListener((/** @type {{kind?: string, recording?: boolean, steps?: number, problem?: string}} */ msg) => {
      if (msg?.kind !== "wm:recorder:progress" || !msg.recording) return;
      this.status.textContent = `Recording: ${msg.steps} step(s)` + (msg.problem ? ` (${msg.problem})` : "");
    });
  }

  async start() {
    if (this.tab.tabId === null) {
      this.status.textContent = "No tab to record: open the page you want to record first.";
      return;
    }
    try {
      await ask("wm:recorder:start", { tab_id: this.tab.tabId });
    } catch (e) {
      this.status.textContent = `Could not record: ${errorMessage(e)}`;
      return;
    }
    this.review.replaceChildren();
    this.record.hidden = true;
    this.stop.hidden = false;
    this.mark.hidden = false;
    this.status.textContent = "Recording: 0 step(s)";
  }

  async markAnswer() {
    try {
      await ask("wm:recorder:mark");
      // A selection is reported at once (the step count moves on); otherwise the next click on the page is the answer.
      this.status.textContent = "Marking the answer: click it on the page (or select its text first).";
    } catch (e) {
      this.status.textContent = `Could not mark the answer: ${errorMessage(e)}`;
    }
  }

  async finish() {
    this.stop.hidden = true;
    this.mark.hidden = true;
    this.record.hidden = false;
    try {
      const demo = await ask("wm:recorder:stop");
      this.status.textContent = "Reading the recording…";
      const draft = /** @type {Draft} */ (await this.client.call("workflow.record_draft", demo));
      this.status.textContent = draft.steps.length ? `Recorded ${draft.steps.length} step(s): review them, then save.` : "Nothing was recorded.";
      if (draft.steps.length) this.review.replaceChildren(this.form(draft));
    } catch (e) {
      this.status.textContent = `The recording could not be read: ${errorMessage(e)}`;
    }
  }

  /**
   * One step as the timeline shows it, with its parameter's name, its checks and a secret mark.
   * @param {DraftStep} step @param {number} index
   */
  stepItem(step, index) {
    const checks = step.checks.map((c, i) => h("label", { class: "check" },
      h("input", { type: "checkbox", checked: true, dataset: { check: String(i) } }), ` ${c.says}`));
    const param = step.param ? h("input", { type: "text", class: "param-name", "aria-label": `Parameter name of step ${index + 1}`, value: step.param }) : null;
    const secret = step.param ? h("label", {}, h("input", { type: "checkbox", class: "secret-mark", "aria-label": `Step ${index + 1} is a secret` }), " secret") : null;
    const value = step.secret ? "a secret (its value is not kept)" : step.value !== undefined ? `"${step.value}"` : "";
    const answer = step.answer ? h("div", { class: "row" }, h("label", {}, "Answer field ",
      h("input", { type: "text", class: "answer-name", "aria-label": `Answer field of step ${index + 1}`, value: step.answer.field }))) : null;
    return h("li", { class: "entry entry-step recorded-step", dataset: { index: String(index) } },
      h("div", { class: "row" }, h("span", { class: "badge" }, String(index + 1)), h("strong", { text: ` ${step.intent}` })),
      value ? h("p", { class: "muted", text: `Value: ${value}` }) : null,
      step.destructive ? h("p", { class: "muted destructive", text: `A replay asks you first: ${step.destructive}` }) : null,
      param ? h("div", { class: "row" }, param, secret) : null,
      answer,
      checks.length ? h("div", { class: "checks" }, checks)
        : h("p", { class: "muted", text: step.answer ? "Read again on the page by every replay" : step.changed ? "No check proposed" : "Changed nothing on the page" }));
  }

  /** The review form: the steps, the workflow's name, Save. @param {Draft} draft */
  form(draft) {
    const items = draft.steps.map((s, i) => this.stepItem(s, i));
    const name = h("input", { type: "text", "aria-label": "Recorded workflow name", value: draft.name || "recorded" });
    const saved = h("p", { class: "saved", role: "status" });
    const form = h("form", { class: "record-form", onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      try {
        const steps = draft.steps.map((step, i) => this.edited(step, items[i]));
        const done = await this.client.call("workflow.record_save", { name: name.value.trim(), task: draft.task, start_url: draft.start_url, steps });
        saved.textContent = `Saved as workflow ${/** @type {{name: string}} */ (done.workflow).name}.`;
        this.onSaved();
      } catch (err) {
        saved.textContent = `Not saved: ${errorMessage(err)}`;
      }
    } }, h("ol", { class: "timeline" }, items), h("div", { class: "row" }, name, h("button", { type: "submit", class: "small" }, "Save")), saved);
    return form;
  }

  /**
   * A step as the user left it: the checks kept, its parameter's name, or its value made a secret.
   * @param {DraftStep} step @param {HTMLElement} item @returns {DraftStep}
   */
  edited(step, item) {
    const kept = step.checks.filter((_c, i) => /** @type {HTMLInputElement|null} */ (item.querySelector(`input[data-check="${i}"]`))?.checked);
    const out = { ...step, checks: kept };
    const field = /** @type {HTMLInputElement|null} */ (item.querySelector(".answer-name"));
    if (field && step.answer) out.answer = { ...step.answer, field: field.value.trim() };
    const named = /** @type {HTMLInputElement|null} */ (item.querySelector(".param-name"));
    if (named) out.param = named.value.trim();
    if (/** @type {HTMLInputElement|null} */ (item.querySelector(".secret-mark"))?.checked) {
      out.secret = out.param;
      out.secret_origin = step.frame_origin;
      delete out.param;
    }
    return out;
  }
}
