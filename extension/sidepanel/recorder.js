// @ts-check
/**
 * Recording a demonstration in the Workflows view: Record starts watching the panel's tab
 * (extension/sw/recorder.js), Stop ends it and shows the recorded steps as the timeline shows a
 * run, each with the checks proposed from what the page showed afterwards
 * (host/workflows/record.py, workflow.record_draft). The user names the parameters, keeps or
 * drops, changes or writes each check (extension/sidepanel/review_checks.js), marks a typed value
 * secret, names the workflow and saves it (workflow.record_save, which refuses a step that changed
 * the page without a check). Mark the answer makes the text selected on the page, or the next
 * element clicked there, the answer the workflow reads; the review marks or changes it too, on the
 * page the recording ended on (extension/sidepanel/review_answer.js), and names its field.
 */
import { errorMessage } from "../shared/errors.js";
import { byId, h } from "./dom.js";
import { answerMarker } from "./review_answer.js";
import { checksBlock } from "./review_checks.js";

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
      // The page the recording ended on: where a replay ends, so where an answer marked in the review is read.
      const last = demo.steps?.at(-1);
      const snapshot = demo.snapshots?.[last ? last.after : demo.snapshots.length - 1];
      const final = snapshot ? { snapshot, text: String(demo.final_text || "") } : undefined;
      if (draft.steps.length) this.review.replaceChildren(this.form(draft, final));
    } catch (e) {
      this.status.textContent = `The recording could not be read: ${errorMessage(e)}`;
    }
  }

  /**
   * One step as the timeline shows it, with its parameter's name, its checks and a secret mark; an
   * answer step can be removed (`drop`).
   * @param {DraftStep} step @param {number} index @param {() => void} drop
   */
  stepItem(step, index, drop) {
    const param = step.param ? h("input", { type: "text", class: "param-name", "aria-label": `Parameter name of step ${index + 1}`, value: step.param }) : null;
    const secret = step.param ? h("label", {}, h("input", { type: "checkbox", class: "secret-mark", "aria-label": `Step ${index + 1} is a secret` }), " secret") : null;
    const value = step.secret ? "a secret (its value is not kept)" : step.value !== undefined ? `"${step.value}"` : "";
    const answer = step.answer ? h("div", { class: "row" }, h("label", {}, "Answer field ",
      h("input", { type: "text", class: "answer-name", "aria-label": `Answer field of step ${index + 1}`, value: step.answer.field })),
    h("button", { type: "button", class: "small secondary", "aria-label": `Remove the answer of step ${index + 1}`, onclick: drop }, "Remove")) : null;
    const item = h("li", { class: "entry entry-step recorded-step", dataset: { index: String(index) } },
      h("div", { class: "row" }, h("span", { class: "badge" }, String(index + 1)), h("strong", { text: ` ${step.intent}` })),
      value ? h("p", { class: "muted", text: `Value: ${value}` }) : null,
      step.destructive ? h("p", { class: "muted destructive", text: `A replay asks you first: ${step.destructive}` }) : null,
      param ? h("div", { class: "row" }, param, secret) : null,
      answer,
      step.answer ? h("p", { class: "muted", text: "Read again on the page by every replay" })
        : checksBlock(this.client, step, index, step.changed ? "No check proposed" : "Changed nothing on the page"));
    return item;
  }

  /**
   * The review form: the steps, the answer to mark, the workflow's name, Save.
   * @param {Draft} draft @param {{snapshot: Record<string, unknown>, text: string}|undefined} final the page the recording
   *   ended on: its snapshot and its readable text
   */
  form(draft, final) {
    // The user's copy of each step: its checks change as they are edited; a removed answer step is left out.
    const steps = draft.steps.map((s) => ({ ...s, checks: [...s.checks] }));
    /** @type {Array<HTMLElement|null>} */
    const items = [];
    const timeline = h("ol", { class: "timeline" });
    /** @param {DraftStep} step */
    const add = (step) => {
      const index = items.length;
      const item = this.stepItem(step, index, () => {
        item.remove();
        items[index] = null;
      });
      items.push(item);
      timeline.append(item);
    };
    steps.forEach(add);
    const taken = () => steps.flatMap((s, i) => items[i] ? [s.param, s.secret, s.answer?.field] : []).filter((n) => typeof n === "string");
    const marker = final ? answerMarker(this.client, final.snapshot, final.text, taken, (step) => {
      steps.push(/** @type {DraftStep} */ (step));
      add(/** @type {DraftStep} */ (step));
    }) : null;
    const name = h("input", { type: "text", "aria-label": "Recorded workflow name", value: draft.name || "recorded" });
    const saved = h("p", { class: "saved", role: "status" });
    const form = h("form", { class: "record-form", onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      try {
        const kept = steps.flatMap((step, i) => { const item = items[i]; return item ? [this.edited(step, item)] : []; });
        const done = await this.client.call("workflow.record_save", { name: name.value.trim(), task: draft.task, start_url: draft.start_url, steps: kept });
        saved.textContent = `Saved as workflow ${/** @type {{name: string}} */ (done.workflow).name}.`;
        this.onSaved();
      } catch (err) {
        saved.textContent = `Not saved: ${errorMessage(err)}`;
      }
    } }, timeline, marker, h("div", { class: "row" }, name, h("button", { type: "submit", class: "small" }, "Save")), saved);
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
