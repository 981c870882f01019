// @ts-check
/**
 * The first-run card: shown in the chat view until a chat model is configured. It offers the
 * model servers running on this machine first (found by the host on their default ports: no key,
 * no cost), then the cloud providers by the names users know: choose one, paste a key, Test, and
 * the model is saved once its Test passes. Each failure is said once, with what to do.
 */
import { byId, clear, h } from "./dom.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {import("./settings_types.js").SettingsView} HostSettings */
/** @typedef {import("./settings_types.js").RoleSettings} RoleSettings */
/** @typedef {{preset: string, name: string, base_url: string, models: string[]}} LocalServer */
/** @typedef {{ok: boolean, error?: {code: string, message: string}}} RoleCheck */

/** Cloud providers as users know them, each with a model to start from (editable). */
const CLOUD = [
  { label: "OpenAI", provider: "openai_compat", preset: "openai", model: "gpt-4o-mini" },
  { label: "Anthropic", provider: "anthropic", preset: "", model: "claude-3-5-haiku-latest" },
  { label: "Google Gemini", provider: "gemini", preset: "", model: "gemini-2.5-flash" },
  { label: "OpenRouter", provider: "openai_compat", preset: "openrouter", model: "openai/gpt-4o-mini" },
];

export class FirstRunCard {
  /** @param {{client: HostClient, onReady: () => Promise<unknown>, openSettings: () => void}} deps */
  constructor(deps) {
    this.client = deps.client;
    this.onReady = deps.onReady;
    this.openSettings = deps.openSettings;
    this.root = byId("first-run");
    /** @type {HostSettings|null} */
    this.view = null;
  }

  /** Show the card while the saved settings have no chat model; hide it once they do. @param {HostSettings} view */
  update(view) {
    this.view = view;
    const ready = Boolean(view.settings.chat.provider);
    if (ready || !this.root.hidden) {
      this.root.hidden = ready;
      return;
    }
    this.root.hidden = false;
    this.render();
    void this.findLocal();
  }

  render() {
    clear(this.root);
    const choice = h("select", { id: "first-run-provider", "aria-label": "Provider" },
      ...CLOUD.map((c, i) => h("option", { value: String(i), text: c.label })));
    const model = h("input", { id: "first-run-model", type: "text", value: CLOUD[0].model, spellcheck: "false", "aria-label": "Model" });
    const key = h("input", { id: "first-run-key", type: "password", autocomplete: "off", placeholder: "Paste your API key", "aria-label": "API key" });
    choice.addEventListener("change", () => { model.value = CLOUD[Number(choice.value)].model; });
    this.root.append(
      h("h2", { id: "first-run-title", text: "Set up a model" }),
      h("p", { class: "muted small", text: "Waymark needs a model to chat and to act. A model running on this computer needs no key and costs nothing." }),
      h("div", { id: "first-run-local", class: "first-run-local", role: "status" }, h("p", { class: "muted small", text: "Looking for Ollama, LM Studio and llama.cpp on this computer…" })),
      h("form", { id: "first-run-cloud", class: "first-run-cloud", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); void this.useCloud(Number(choice.value), model.value.trim(), key.value); } },
        h("p", { class: "first-run-or", text: "Or use a cloud provider:" }),
        h("div", { class: "row" }, choice, model),
        key,
        h("div", { class: "row" },
          h("button", { type: "submit", id: "first-run-test", text: "Test and use" }),
          h("button", { type: "button", class: "secondary small", onclick: this.openSettings, text: "All settings" }))),
      h("p", { id: "first-run-result", class: "test-result", role: "status", "aria-live": "polite" }),
    );
  }

  /** Ask the host which local servers answer, and offer each with the first model it lists. */
  async findLocal() {
    const box = byId("first-run-local");
    let servers = /** @type {LocalServer[]} */ ([]);
    try {
      servers = /** @type {{servers: LocalServer[]}} */ (await this.client.call("providers.local")).servers;
    } catch {
      servers = [];
    }
    clear(box);
    const usable = servers.filter((s) => s.models.length);
    if (!usable.length) {
      const empty = servers.length ? `${servers.map((s) => s.name).join(" and ")} answered but lists no model: pull one first (for Ollama: ollama pull llama3.2).` :
        "No local model server is running (looked for Ollama on port 11434, LM Studio on 1234, llama.cpp on 8080).";
      box.append(h("p", { class: "muted small", text: empty }));
      return;
    }
    box.append(h("p", { class: "first-run-found", text: "Found on this computer:" }));
    for (const server of usable) {
      const role = { provider: "openai_compat", model: server.models[0], options: { preset: server.preset, base_url: server.base_url } };
      box.append(h("button", { type: "button", class: "first-run-use", dataset: { preset: server.preset },
        onclick: () => void this.use(role, `${server.name} · ${server.models[0]}`) }, `Use ${server.name} · ${server.models[0]}`));
    }
  }

  /** @param {number} index @param {string} model @param {string} key */
  async useCloud(index, model, key) {
    const cloud = CLOUD[index];
    const view = /** @type {HostSettings} */ (this.view);
    const name = view.key_names[`${cloud.provider}:${cloud.preset}`] || view.key_names[cloud.provider] || "";
    if (!model) return this.say(false, "Type the model's name (the provider's documentation lists them).");
    if (name && !key && !view.provider_keys.includes(name)) return this.say(false, `Paste your ${cloud.label} API key first (it is kept by the host as ${name}, never in the browser).`);
    if (name && key) {
      await this.client.call("secrets.set", { name, value: key, kind: "provider_key" });
      /** @type {HTMLInputElement} */ (byId("first-run-key")).value = "";
    }
    await this.use({ provider: cloud.provider, model, options: cloud.preset ? { preset: cloud.preset } : {} }, `${cloud.label} · ${model}`);
  }

  /** Test a chat role as given and save it when the Test passes. @param {RoleSettings} role @param {string} label */
  async use(role, label) {
    this.say(null, `Testing ${label}…`);
    try {
      const check = /** @type {RoleCheck} */ (await this.client.call("settings.test", { role: "chat", settings: { chat: role } }));
      if (!check.ok) return this.say(false, `${label} did not answer the Test: ${check.error?.message ?? "unknown error"}`);
      await this.client.call("settings.set", { settings: { chat: role } });
    } catch (e) {
      return this.say(false, `${label} could not be set up: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.say(true, `Ready: ${label}.`);
    await this.onReady();
  }

  /** @param {boolean|null} ok @param {string} text */
  say(ok, text) {
    const out = byId("first-run-result");
    out.textContent = text;
    out.className = `test-result${ok === true ? " ok" : ok === false ? " bad" : ""}`;
  }
}
