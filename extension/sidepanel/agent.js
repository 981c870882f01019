// @ts-check
/**
 * Agent mode: start a task on the current tab and follow it live. Every step the host streams
 * becomes a timeline entry (intent, action, verdict, time, tokens, thumbnail); questions
 * (`ask_user`) and confirmations of destructive actions are answered inline; Stop cancels the
 * run at once; the end shows a summary with where the trace is.
 */
import { errorCode, errorMessage } from "../shared/errors.js";
import { STEP_VERDICT_TONES } from "./agent_types.js";
import { byId, clear, formatMs, h } from "./dom.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {import("./host_client.js").CallHandle} CallHandle */
/** @typedef {import("./host_status.js").HostStatus} HostStatus */
/** @typedef {import("./current_tab.js").CurrentTab} CurrentTab */
/** @typedef {import("./settings_types.js").Settings} Settings */
/** @typedef {import("./agent_types.js").PlanStep} PlanStep */
/** @typedef {import("./agent_types.js").RunSummary} RunSummary */
/** @typedef {import("./agent_types.js").StepEvent} StepEvent  a `step` event, or an action an MCP client took (host/mcp_access.py) */
/** @typedef {import("./agent_types.js").GroundedValue} GroundedValue */
/**
 * The other events of a run the panel shows, as host/agent/loop.py and host/rpc/agent.py stream
 * them (free records on the host's side, so these name only the fields read here).
 * @typedef {{run_id?: string, steps: PlanStep[]}} PlanEvent
 * @typedef {{run_id?: string, intent?: string, reason?: string}} StepFailedEvent
 * @typedef {{run_id: string, request_id: string, action_line?: string, reason?: string, url?: string, question?: string}} PromptEvent
 */

/**
 * How a verdict reads (its badge's class); a verdict the host does not name reads as a warning.
 * @param {string} verdict
 * @returns {"ok"|"warn"|"bad"}
 */
function tone(verdict) {
  return STEP_VERDICT_TONES[verdict] || "warn";
}

/**
 * The `agent.run` parameters for a task. The host runs each role (planner, executor) with the
 * provider and model saved in its settings, so only the task, the tab and the policy travel.
 * @param {Settings} settings  the host's settings (settings.get().settings)
 * @param {string} task
 * @param {number|null} tabId
 * @param {string} [schemaText]  the JSON Schema the answer must match, as typed (empty: no answer asked for)
 * @returns {Record<string, unknown>}
 */
export function agentParams(settings, task, tabId, schemaText = "") {
  for (const role of /** @type {const} */ (["planner", "executor"])) {
    const conf = settings[role].provider ? settings[role] : settings.chat;
    if (!conf.provider) {
      throw Object.assign(new Error("No model is configured for agent mode: choose a provider and model in Settings. (Chrome's built-in model is chat-only.)"), { code: "provider_not_configured" });
    }
  }
  return {
    task,
    tab_id: tabId ?? undefined,
    policy: { destructive: settings.confirm_policy, allow_domains: settings.allow_domains, block_domains: settings.block_domains },
    screenshots: settings.screenshots,
    output_schema: outputSchema(schemaText),
  };
}

/**
 * The output schema typed in the agent form: undefined when empty, a JSON object otherwise (the
 * host checks that it is a JSON Schema).
 * @param {string} text
 * @returns {Record<string, unknown>|undefined}
 */
export function outputSchema(text) {
  if (!text.trim()) return undefined;
  let schema;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    throw Object.assign(new Error(`The answer's JSON Schema is not JSON: ${errorMessage(e)}`), { code: "bad_params" });
  }
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) {
    throw Object.assign(new Error("The answer's JSON Schema must be a JSON object."), { code: "bad_params" });
  }
  return schema;
}

/**
 * Where a value of the answer came from, for its row's tooltip.
 * @param {GroundedValue} v
 */
export function sourceText(v) {
  if (v.status === "computed") return "Computed (not looked for on the page)";
  if (v.status !== "found" || !v.source) return "Not found on any page the agent read";
  const s = v.source;
  return `Found on ${s.url}${s.element ? ` in ${s.element}` : s.where ? ` (${s.where})` : ""}${s.excerpt ? `: …${s.excerpt}…` : ""}`;
}

/**
 * The answer as a small table: each value's path and value, its source on hover.
 * @param {RunSummary} s
 */
export function answerTable(s) {
  const values = s.grounding?.values || [];
  if (s.data === null || s.data === undefined) return null;
  if (!values.length) return h("pre", { class: "answer-data", text: JSON.stringify(s.data, null, 1) });
  return h("table", { class: "answer", "aria-label": "Answer" },
    h("tr", {}, h("th", { text: "Field" }), h("th", { text: "Value" }), h("th", { text: "" })),
    ...values.map((v) => h("tr", { class: v.status, title: sourceText(v), dataset: { path: v.path, status: v.status } },
      h("td", { text: v.path.replace(/^\$\.?/, "") }),
      h("td", { text: typeof v.value === "string" ? v.value : JSON.stringify(v.value) }),
      h("td", { text: v.status === "found" ? "✓" : v.status === "computed" ? "=" : "✗", "aria-label": v.status }))));
}

export class AgentView {
  /** @param {{client: HostClient, status: HostStatus, tab: CurrentTab, openSettings: () => void}} deps */
  constructor(deps) {
    this.client = deps.client;
    this.openSettings = deps.openSettings;
    this.status = deps.status;
    this.tab = deps.tab;
    /** @type {Settings|null} */
    this.settings = null;
    /** @type {CallHandle|null} */
    this.running = null;
    /** What a successful run's summary offers to save it as a workflow (set by the workflows view).
     * @type {((summary: RunSummary) => HTMLElement)|null} */
    this.onSaveable = null;
    this.runId = "";
    this.timeline = byId("agent-timeline");
    this.summary = byId("agent-summary");
    this.task = /** @type {HTMLTextAreaElement} */ (byId("agent-task"));
    this.schema = /** @type {HTMLTextAreaElement} */ (byId("agent-schema"));
    this.startButton = /** @type {HTMLButtonElement} */ (byId("agent-start"));
    this.stopButton = /** @type {HTMLButtonElement} */ (byId("agent-stop"));
    byId("agent-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.start();
    });
    this.task.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void this.start();
      }
    });
    this.stopButton.addEventListener("click", () => this.stop());
  }

  /** @param {Settings} settings */
  setSettings(settings) {
    this.settings = settings;
    const exec = settings.executor.provider ? settings.executor : settings.chat;
    byId("agent-model").textContent = exec.provider ? `Agent model: ${exec.provider}/${exec.model || "default"}` : "No agent model configured: choose one in Settings.";
  }

  /** @param {boolean} busy */
  setBusy(busy) {
    this.startButton.hidden = busy;
    this.stopButton.hidden = !busy;
    this.stopButton.disabled = false;
    this.stopButton.textContent = "Stop";
    this.task.disabled = busy;
    this.schema.disabled = busy;
    this.timeline.setAttribute("aria-busy", String(busy));
  }

  stop() {
    if (!this.running) return;
    this.running.cancel();
    this.stopButton.disabled = true;
    this.stopButton.textContent = "Stopping…";
    for (const card of this.timeline.querySelectorAll(".prompt-card:not([data-answered])")) disableCard(/** @type {HTMLElement} */ (card), "The run was stopped.");
  }

  async start() {
    const task = this.task.value.trim();
    if (!task || this.running) return;
    let params;
    try {
      if (!this.settings) throw Object.assign(new Error("The host's settings are not loaded yet: is the host connected?"), { code: "host_disconnected" });
      params = agentParams(this.settings, task, this.tab.tabId, this.schema.value);
    } catch (e) {
      clear(this.timeline);
      const fix = /** @type {{code?: string}} */ (e).code === "provider_not_configured" ? { label: "Open settings", run: this.openSettings } : undefined;
      this.showEnd({ kind: "error", title: "Cannot start", text: errorMessage(e) }, fix);
      return;
    }
    await this.follow("agent.run", params, task);
  }

  /**
   * Replay a saved workflow (host/rpc/workflows.py `workflow.run`) in the same timeline as a run.
   * @param {string} name @param {Record<string, string>} values  its parameters' values
   */
  async replay(name, values) {
    if (this.running) return;
    const settings = this.settings;
    const policy = settings ? { destructive: settings.confirm_policy, allow_domains: settings.allow_domains, block_domains: settings.block_domains } : undefined;
    await this.follow("workflow.run", { name, params: values, policy, screenshots: settings?.screenshots ?? false }, `Workflow: ${name}`);
  }

  /**
   * Run a host method that streams a run's events (agent.run, workflow.run) to its summary.
   * @param {string} method @param {Record<string, unknown>} params @param {string} title
   */
  async follow(method, params, title) {
    clear(this.timeline);
    clear(this.summary);
    this.runId = "";
    this.setBusy(true);
    this.timeline.append(entry("task", h("span", { class: "intent", text: title }), h("span", { class: "badge", text: "started" })));
    const call = this.client.start(method, params, { turn: true, onNotify: (name, data) => this.onEvent(name, data) });
    this.running = call;
    try {
      const summary = /** @type {RunSummary} */ (await call.done);
      this.showSummary(summary);
      this.status.reportProvider(null);
    } catch (e) {
      const code = errorCode(e) || "error";
      if (code === "cancelled") {
        this.showEnd({ kind: "stopped", title: "Stopped", text: "You stopped the run. Nothing more will be done on the page." });
      } else if (code === "worker_restarted") {
        this.showEnd({
          kind: "error", title: "Run interrupted",
          text: "The extension's background worker stopped during the run, which ended it; no further actions were taken. The page may be part-way through the task. Start the task again when ready.",
        });
      } else {
        this.showEnd({ kind: "error", title: "The run failed to start", text: `${errorMessage(e)} (${code})` });
        this.status.reportProvider({ code, message: errorMessage(e) });
      }
    } finally {
      this.running = null;
      this.setBusy(false);
      this.markOutcome();
      for (const card of this.timeline.querySelectorAll(".prompt-card:not([data-answered])")) disableCard(/** @type {HTMLElement} */ (card), "The run ended.");
    }
  }

  /** Open the run's trace as a page (the host writes its trace.html first). @param {string} runId */
  async openTrace(runId) {
    try {
      const page = /** @type {{path: string}} */ (await this.client.call("trace.page", { run_id: runId }));
      await chrome.tabs.create({ url: `file://${page.path}` });
    } catch (e) {
      this.summary.querySelector(".trace")?.append(h("span", { class: "bad", text: ` Could not open it: ${errorMessage(e)}` }));
    }
  }

  /** The task card's badge says how the run ended (as its summary does), not "started" for ever. */
  markOutcome() {
    const badge = this.timeline.querySelector(".entry-task .badge");
    if (!badge) return;
    const outcome = this.summary.querySelector(".summary")?.getAttribute("data-outcome") || "ended";
    badge.textContent = outcome;
    badge.className = `badge ${outcome === "done" ? "ok" : ["stopped", "unproven"].includes(outcome) ? "warn" : "bad"}`;
  }

  /** @param {string} name @param {Record<string, unknown>} data */
  onEvent(name, data) {
    if (typeof data.run_id === "string" && data.run_id) this.runId = data.run_id;
    switch (name) {
      case "plan":
      case "replan": {
        const { steps } = /** @type {PlanEvent} */ (data);
        this.timeline.append(entry(name, h("span", { class: "intent", text: name === "plan" ? `Plan: ${steps.length} steps` : `New plan: ${steps.length} steps` }),
          h("ol", { class: "plan" }, steps.map((s) => h("li", { text: s.intent })))));
        break;
      }
      case "step":
        this.timeline.append(stepEntry(/** @type {StepEvent} */ (data)));
        break;
      case "step_failed": {
        const failed = /** @type {StepFailedEvent} */ (data);
        this.timeline.append(entry("step-failed", h("span", { class: "intent", text: `Step failed: ${failed.intent}` }), h("p", { class: "reason", text: failed.reason })));
        break;
      }
      case "confirm":
        this.timeline.append(this.confirmCard(/** @type {PromptEvent} */ (data)));
        break;
      case "ask_user":
        this.timeline.append(this.askCard(/** @type {PromptEvent} */ (data)));
        break;
      default:
        return; // run, finished: the reply carries the summary
    }
    this.timeline.lastElementChild?.scrollIntoView({ block: "nearest" });
  }

  /** @param {PromptEvent} data */
  confirmCard(data) {
    const card = h("li", { class: "entry prompt-card confirm", role: "group", "aria-label": "Confirmation needed", dataset: { kind: "confirm", requestId: data.request_id } },
      h("p", { class: "prompt-title", text: "Confirm this action?" }),
      h("p", { class: "action-line", text: data.action_line }),
      h("p", { class: "reason", text: `Why I ask: ${data.reason}${data.url ? ` · on ${data.url}` : ""}` }),
    );
    const answer = async (/** @type {boolean} */ ok) => {
      if (!(await this.answer(card, data, ok))) return;
      disableCard(card, ok ? "Approved." : "Declined.");
    };
    const approve = h("button", { type: "button", class: "approve", onclick: () => void answer(true) }, "Approve");
    card.append(h("div", { class: "actions" }, approve, h("button", { type: "button", class: "secondary decline", onclick: () => void answer(false) }, "Decline")));
    queueMicrotask(() => approve.focus());
    return card;
  }

  /** @param {PromptEvent} data */
  askCard(data) {
    const input = h("input", { type: "text", "aria-label": "Your answer" });
    const card = h("li", { class: "entry prompt-card ask", role: "group", "aria-label": "Question from the agent", dataset: { kind: "ask_user", requestId: data.request_id } },
      h("p", { class: "prompt-title", text: "The agent asks:" }),
      h("p", { class: "question", text: data.question }),
    );
    const send = async (/** @type {string} */ text) => {
      if (!(await this.answer(card, data, text))) return;
      disableCard(card, text ? `You answered: ${text}` : "Skipped.");
    };
    const form = h("form", { class: "actions", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); void send(input.value.trim()); } },
      input, h("button", { type: "submit" }, "Answer"), h("button", { type: "button", class: "secondary", onclick: () => void send("") }, "Skip"));
    card.append(form);
    queueMicrotask(() => input.focus());
    return card;
  }

  /**
   * @param {HTMLElement} card @param {PromptEvent} data @param {boolean|string} answer
   * @returns {Promise<boolean>} whether the host took the answer
   */
  async answer(card, data, answer) {
    try {
      await this.client.call("agent.answer", { run_id: data.run_id, request_id: data.request_id, answer });
      return true;
    } catch (e) {
      disableCard(card, `Could not answer: ${errorMessage(e)}`);
      return false;
    }
  }

  /** @param {RunSummary} s */
  showSummary(s) {
    const ok = Boolean(s.success);
    const trace = s.trace_dir && s.run_id ? s.run_id : "";
    this.summary.replaceChildren(h("section", { class: `summary ${ok ? "ok" : "bad"}`, role: "status", dataset: { outcome: s.outcome || (ok ? "done" : "failed") } },
      h("h3", { text: ok ? "Done" : `Not done: ${s.outcome || "failed"}` }),
      s.result ? h("p", { class: "result", text: s.result }) : null,
      answerTable(s),
      s.reason && !ok ? h("p", { class: "reason", text: s.reason }) : null,
      h("p", { class: "figures", text: `${s.steps_passed}/${s.steps_total} steps passed${s.steps_unproven ? ` · ${s.steps_unproven} unproven` : ""} · ${formatMs(s.duration_ms)} · ${s.tokens_total} tokens${s.retries ? ` · ${s.retries} retries` : ""}${s.replans ? ` · ${s.replans} replans` : ""}` }),
      trace ? h("p", { class: "trace" },
        h("a", { href: `file://${s.trace_dir}/trace.html`, onclick: (/** @type {Event} */ e) => { e.preventDefault(); void this.openTrace(trace); } }, "Open the run's trace"),
        h("span", { class: "figures", text: ` · ${trace}` })) : null,
      s.workflow ? h("p", { class: "figures", text: `Replay: ${s.replay} · ${s.model_calls ?? 0} model calls` }) : null,
      ok && s.run_id && !s.workflow && this.onSaveable ? this.onSaveable(s) : null,
    ));
    // The outcome is what the user waited for: it is brought into the timeline's view.
    this.summary.scrollIntoView({ block: "nearest" });
  }

  /**
   * @param {{kind: string, title: string, text: string}} end
   * @param {{label: string, run: () => void}=} fix  the button that fixes what went wrong
   */
  showEnd(end, fix) {
    this.summary.replaceChildren(h("section", { class: `summary ${end.kind === "error" ? "bad" : ""}`, role: end.kind === "error" ? "alert" : "status", dataset: { outcome: end.kind } },
      h("h3", { text: end.title }), h("p", { text: end.text }),
      fix ? h("button", { type: "button", class: "small", onclick: fix.run }, fix.label) : null));
    this.summary.scrollIntoView({ block: "nearest" });
  }
}

/** @param {HTMLElement} card @param {string} note */
function disableCard(card, note) {
  card.dataset.answered = "true";
  for (const el of card.querySelectorAll("button, input")) /** @type {HTMLButtonElement} */ (el).disabled = true;
  card.append(h("p", { class: "answered", text: note }));
}

/** @param {string} kind @param {...(Node|null)} children */
function entry(kind, ...children) {
  return h("li", { class: `entry entry-${kind}`, dataset: { kind } }, ...children);
}

/**
 * One step of a timeline: an agent's step, or an action an MCP client took (host/mcp_access.py).
 * @param {StepEvent} d
 */
export function stepEntry(d) {
  const verdict = String(d.verdict || "");
  const ms = Object.values(d.timing || {}).reduce((a, b) => a + Number(b || 0), 0);
  const figures = [ms ? formatMs(ms) : "", d.tokens ? `${d.tokens} tokens` : "", (d.attempt ?? 1) > 1 ? `attempt ${d.attempt}` : ""].filter(Boolean).join(" · ");
  const thumb = d.thumbnail_b64 ? h("img", { class: "thumb", alt: `Screenshot after step ${d.step}`, src: `data:image/jpeg;base64,${d.thumbnail_b64}` }) : null;
  return h("li", { class: "entry entry-step", dataset: { kind: "step", verdict, step: d.step } },
    h("div", { class: "step-head" },
      h("span", { class: "step-no", text: `${d.step}` }),
      h("span", { class: "intent", text: d.intent }),
      h("span", { class: `badge ${tone(verdict)}`, text: verdict })),
    d.action_line ? h("p", { class: "action-line", text: d.action_line }) : null,
    d.reason && tone(verdict) !== "ok" ? h("p", { class: "reason", text: d.reason }) : null,
    figures ? h("p", { class: "figures", text: figures }) : null,
    thumb,
  );
}
