// @ts-check
/**
 * Settings: a provider and model per role (chat, planner, executor), API keys, domain allow
 * and block lists, the confirmation policy, screenshots, diagnostics and the theme.
 * Everything but the theme is kept by the host. API keys go straight to the host's secret
 * store (as provider keys, never typeable) and are never written to chrome.storage; the panel
 * only ever learns their names. Typeable secrets and their sites: sidepanel/secrets.js.
 */
import { errorMessage } from "../shared/errors.js";
import { byId, clear, h } from "./dom.js";
import { PROVIDER_NAMES } from "./provider_names.js";
import { secretsFieldset } from "./secrets.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {import("./host_status.js").Problem} Problem */
/** The host's settings view (`settings.get`). @typedef {import("./settings_types.js").SettingsView} HostSettings */
/** @typedef {import("./settings_types.js").RoleSettings} RoleSettings */
/**
 * What `settings.test` answers (host/rpc/settings.py).
 * @typedef {{ok: boolean, provider: string, model: string, latency_ms?: number,
 *   checked?: "listing"|"prompt", error?: import("../shared/protocol_types.js").ErrorInfo}} RoleCheck
 */

const ROLES = /** @type {const} */ (["chat", "planner", "executor"]);
const ROLE_HELP = {
  chat: "Answers questions in chat mode.",
  planner: "Plans agent tasks. Empty: uses the chat model.",
  executor: "Picks each agent action. Empty: uses the chat model.",
};
/** The OpenAI-compatible servers, by the names users know. */
const PRESETS = [["openai", "OpenAI"], ["openrouter", "OpenRouter"], ["ollama", "Ollama"], ["lmstudio", "LM Studio"], ["llamacpp", "llama.cpp"], ["vllm", "vLLM"]];
const THEME_KEY = "waymark.theme";

/** Apply the saved theme ("system", "light" or "dark"); UI-only, so it may live in chrome.storage. */
export async function applySavedTheme() {
  const theme = String((await chrome.storage.local.get(THEME_KEY))[THEME_KEY] || "system");
  document.documentElement.dataset.theme = theme;
  return theme;
}

export class SettingsView {
  /** @param {{client: HostClient, onSaved: (view: HostSettings) => void}} deps */
  constructor(deps) {
    this.client = deps.client;
    this.onSaved = deps.onSaved;
    this.root = byId("settings-form");
    /** @type {HostSettings|null} */
    this.view = null;
    this.root.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.save();
    });
  }

  /** Fetch the host's settings and build the form. */
  async load() {
    try {
      this.view = /** @type {HostSettings} */ (await this.client.call("settings.get"));
    } catch (e) {
      this.renderUnavailable(errorMessage(e));
      return null;
    }
    await this.render();
    this.onSaved(this.view);
    return this.view;
  }

  /**
   * The host is not connected: say why, in the words of the panel's problem box (shown above every
   * tab, with the command to run), instead of waiting for settings that cannot come. Settings
   * already shown stay (a reconnect reloads them).
   * @param {Problem|null} problem  what is wrong, or null while the first connection is still being made
   */
  showDisconnected(problem) {
    if (this.view) return;
    clear(this.root);
    const why = problem ? `Settings are kept by the host, which is not connected: ${problem.title}` : "Loading settings from the host…";
    const todo = problem?.command ? ` Run ${problem.command} as shown above.` : "";
    this.root.append(h("p", { class: "muted", role: "status", text: why + todo }));
    if (problem?.help) this.root.append(h("p", { class: "muted small", text: problem.help }));
  }

  /** @param {string} why */
  renderUnavailable(why) {
    clear(this.root);
    this.root.append(h("p", { class: "muted", text: `Settings are kept by the host, which is not reachable: ${why}` }));
  }

  async render() {
    const view = /** @type {HostSettings} */ (this.view);
    const s = view.settings;
    clear(this.root);
    // One model does everything unless the user asks for separate ones: most need only the chat role.
    const separate = Boolean(s.planner.provider || s.executor.provider);
    const toggle = checkbox("set-separate-roles", "Use separate models for planning and for acting (agent)", separate);
    const roles = ROLES.map((role) => this.roleFieldset(role, s[role], view));
    const showRoles = () => { for (const fs of roles.slice(1)) fs.hidden = !toggle.querySelector("input")?.checked; };
    toggle.querySelector("input")?.addEventListener("change", showRoles);
    showRoles();
    this.root.append(roles[0], toggle, ...roles.slice(1));
    this.root.append(secretsFieldset(this.client, view.secrets, () => this.load()));
    const theme = await applySavedTheme();
    this.root.append(
      h("fieldset", {},
        h("legend", { text: "Agent safety" }),
        field("Allowed domains (one per line; empty allows all)", h("textarea", { id: "set-allow", rows: 2, spellcheck: "false", value: s.allow_domains.join("\n") })),
        field("Blocked domains (one per line)", h("textarea", { id: "set-block", rows: 2, spellcheck: "false", value: s.block_domains.join("\n") })),
        field("Destructive actions (pay, order, delete, send…)", select("set-confirm", [["ask", "ask me first"], ["allow", "allow without asking"], ["block", "never do them"]], s.confirm_policy)),
        field("Upload folder (the agent may upload files from here, by name; empty: no uploads)",
          h("input", { id: "set-upload-dir", type: "text", value: s.upload_dir || "", placeholder: "/home/me/Uploads", spellcheck: "false" })),
      ),
      h("fieldset", {},
        h("legend", { text: "Display" }),
        checkbox("set-screenshots", "Attach numbered screenshots (sent to vision models, shown in the timeline)", s.screenshots),
        checkbox("set-diagnostics", "Show the diagnostics panel", s.diagnostics),
        field("Theme", select("set-theme", [["system", "system"], ["light", "light"], ["dark", "dark"]], theme)),
      ),
      h("div", { class: "actions" },
        h("button", { type: "submit", id: "settings-save", text: "Save settings" }),
        h("span", { id: "settings-result", role: "status", "aria-live": "polite" })),
      h("p", { class: "muted small", text: `Kept by the host in ${view.config_path}; API keys in its secret store, never in the browser.` }),
    );
  }

  /**
   * @param {"chat"|"planner"|"executor"} role @param {RoleSettings} conf @param {HostSettings} view
   */
  roleFieldset(role, conf, view) {
    const id = (/** @type {string} */ name) => `set-${role}-${name}`;
    const { preset, base_url: baseUrl, temperature, timeout, context_tokens: contextTokens, native_tools: nativeTools, ...extra } = conf.options || {};
    const num = (/** @type {string} */ name, /** @type {unknown} */ v, /** @type {string} */ placeholder, /** @type {string} */ step) =>
      h("input", { id: id(name), type: "number", min: "0", step, value: v === undefined || v === null ? "" : String(v), placeholder });
    const providers = [["", role === "chat" ? "(none)" : "(same as chat)"], ...view.providers.map((p) => [p, PROVIDER_NAMES[p] || p])];
    const fs = h("fieldset", { class: "role", dataset: { role } },
      h("legend", { text: role[0].toUpperCase() + role.slice(1) }),
      h("p", { class: "muted small", text: ROLE_HELP[role] }),
      field("Provider", select(id("provider"), providers, conf.provider)),
      field("Model", h("input", { id: id("model"), type: "text", value: conf.model, placeholder: "e.g. gemini-2.5-flash", spellcheck: "false" })),
      field("Service", select(id("preset"), [["", "(none)"], ...PRESETS], String(preset || "")), "preset"),
      field("Base URL", h("input", { id: id("base_url"), type: "url", value: baseUrl || "", placeholder: "the provider's default", spellcheck: "false" })),
      field("API key", h("input", { id: id("key"), type: "password", autocomplete: "off", value: "" }), "key"),
      field("Temperature", num("temperature", temperature, "default (local servers: 0)", "0.1")),
      field("Seconds per model call", num("timeout", timeout, "default (local servers: 300)", "1")),
      field("Context window (tokens)", num("context_tokens", contextTokens, "the provider's default", "1")),
      field("Tool calling", select(id("native_tools"), [["", "default"], ["true", "on"], ["false", "off"]],
        nativeTools === undefined || nativeTools === null ? "" : String(nativeTools))),
      h("details", {},
        h("summary", { text: "More options (JSON)" }),
        h("textarea", { id: id("options"), rows: 3, spellcheck: "false", "aria-label": `${role} provider options (JSON)`, value: Object.keys(extra).length ? JSON.stringify(extra, null, 2) : "" })),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "small", id: id("test"), onclick: () => void this.test(role) }, "Test"),
        h("span", { class: "test-result", id: id("test-result"), role: "status", "aria-live": "polite" })),
    );
    const providerSelect = /** @type {HTMLSelectElement} */ (fs.querySelector(`#${id("provider")}`));
    const presetSelect = /** @type {HTMLSelectElement} */ (fs.querySelector(`#${id("preset")}`));
    const syncFields = () => {
      /** @type {HTMLElement} */ (fs.querySelector(".field-preset")).hidden = providerSelect.value !== "openai_compat";
      // The key field names the secret the provider looks its key up by; local servers need none.
      const name = keyName(view, providerSelect.value, presetSelect.value);
      const keyField = /** @type {HTMLElement} */ (fs.querySelector(".field-key"));
      keyField.hidden = !name;
      /** @type {HTMLElement} */ (keyField.querySelector("span")).textContent = name
        ? `API key (${name})${view.provider_keys.includes(name) ? ": stored on the host, type to replace" : ""}`
        : "API key";
      /** @type {HTMLInputElement} */ (keyField.querySelector("input")).placeholder = name && view.provider_keys.includes(name) ? "••••••••" : "";
    };
    providerSelect.addEventListener("change", syncFields);
    presetSelect.addEventListener("change", syncFields);
    syncFields();
    return fs;
  }

  /** Read one role's fields; stores a typed key in the host's secret store first. */
  /** @param {"chat"|"planner"|"executor"} role @returns {Promise<RoleSettings>} */
  async collectRole(role) {
    const value = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ (byId(`set-${role}-${name}`)).value.trim();
    const provider = value("provider");
    /** @type {Record<string, unknown>} */
    let options = {};
    const extra = value("options");
    if (extra) {
      try {
        options = JSON.parse(extra);
      } catch {
        throw new Error(`${role}: "More options" is not valid JSON`);
      }
      if (!options || typeof options !== "object" || Array.isArray(options)) throw new Error(`${role}: "More options" must be a JSON object`);
    }
    if (provider === "openai_compat" && value("preset")) options.preset = value("preset");
    if (value("base_url")) options.base_url = value("base_url");
    for (const name of ["temperature", "timeout", "context_tokens"]) {
      if (value(name) === "") continue;
      const number = Number(value(name));
      if (!Number.isFinite(number) || number < 0) throw new Error(`${role}: ${name.replace("_", " ")} must be a number of at least 0`);
      options[name] = number;
    }
    if (value("native_tools")) options.native_tools = value("native_tools") === "true";
    const keyInput = /** @type {HTMLInputElement} */ (byId(`set-${role}-key`));
    const name = keyName(/** @type {HostSettings} */ (this.view), provider, String(options.preset || ""));
    if (keyInput.value && name) {
      // Straight to the host's secret store: the key is never kept by the extension.
      await this.client.call("secrets.set", { name, value: keyInput.value, kind: "provider_key" });
      keyInput.value = "";
    }
    return { provider, model: value("model"), options };
  }

  async save() {
    const result = byId("settings-result");
    result.textContent = "Saving…";
    result.className = "";
    try {
      /** @type {Record<string, unknown>} */
      const patch = {};
      const separate = /** @type {HTMLInputElement} */ (byId("set-separate-roles")).checked;
      // Without separate models, planning and acting use the chat model: their own are cleared.
      for (const role of ROLES) patch[role] = role === "chat" || separate ? await this.collectRole(role) : { provider: "", model: "", options: {} };
      const lines = (/** @type {string} */ id) => /** @type {HTMLTextAreaElement} */ (byId(id)).value.split(/[\n,]/).map((l) => l.trim()).filter(Boolean);
      patch.allow_domains = lines("set-allow");
      patch.block_domains = lines("set-block");
      patch.confirm_policy = /** @type {HTMLSelectElement} */ (byId("set-confirm")).value;
      patch.upload_dir = /** @type {HTMLInputElement} */ (byId("set-upload-dir")).value.trim() || null;
      patch.screenshots = /** @type {HTMLInputElement} */ (byId("set-screenshots")).checked;
      patch.diagnostics = /** @type {HTMLInputElement} */ (byId("set-diagnostics")).checked;
      const theme = /** @type {HTMLSelectElement} */ (byId("set-theme")).value;
      await chrome.storage.local.set({ [THEME_KEY]: theme });
      const view = /** @type {HostSettings} */ (await this.client.call("settings.set", { settings: patch }));
      this.view = view;
      await this.render();
      this.onSaved(view);
      const done = byId("settings-result");
      done.textContent = "Saved.";
      done.className = "ok";
    } catch (e) {
      const failed = byId("settings-result");
      failed.textContent = `Not saved: ${errorMessage(e)}`;
      failed.className = "bad";
    }
  }

  /** @param {"chat"|"planner"|"executor"} role */
  async test(role) {
    const out = byId(`set-${role}-test-result`);
    out.textContent = "Testing…";
    out.className = "test-result";
    try {
      // What is on screen is tested, saved or not: the chat role too, which an empty role falls back to.
      /** @type {Record<string, RoleSettings>} */
      const form = { chat: await this.collectRole("chat") };
      if (role !== "chat") form[role] = await this.collectRole(role);
      const r = /** @type {RoleCheck} */ (await this.client.call("settings.test", { role, settings: form }));
      if (r.ok) {
        const how = r.checked === "listing" ? "is listed by the server (no tokens spent)" : "answered";
        out.textContent = `OK: ${r.provider}/${r.model} ${how} in ${Math.round(r.latency_ms ?? 0)} ms`;
        out.className = "test-result ok";
      } else {
        out.textContent = `${r.error?.code}: ${r.error?.message}`;
        out.className = "test-result bad";
      }
    } catch (e) {
      out.textContent = errorMessage(e);
      out.className = "test-result bad";
    }
  }
}

/**
 * The secret name a provider's key is stored under, or "" when it needs none.
 * @param {HostSettings} view @param {string} provider @param {string} preset
 */
function keyName(view, provider, preset) {
  return view.key_names[`${provider}:${preset}`] || view.key_names[provider] || "";
}

/** @param {string} label @param {HTMLElement} control @param {string=} name */
function field(label, control, name) {
  return h("label", { class: `field${name ? ` field-${name}` : ""}` }, h("span", { text: label }), control);
}

/** @param {string} id @param {string} label @param {boolean} checked */
function checkbox(id, label, checked) {
  return h("label", { class: "check" }, h("input", { id, type: "checkbox", checked }), h("span", { text: label }));
}

/** @param {string} id @param {string[][]} options @param {string} value */
function select(id, options, value) {
  const el = h("select", { id }, options.map(([v, label]) => h("option", { value: v, text: label })));
  el.value = value;
  return el;
}
