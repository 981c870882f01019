// @ts-check
/**
 * Settings → Secrets: the values a task may type as `{{secret:NAME}}`, each bound to the sites
 * (origins) it may be typed on, as a password manager binds a login; a secret with no site cannot
 * be typed. MCP clients type a secret only on a site the user granted it for here. Values go
 * straight to the host (host/rpc/settings.py) and never come back: the panel sees names, sites
 * and grants only. Provider API keys are kept apart (the role fieldsets) and are never typeable.
 */
import { errorMessage } from "../shared/errors.js";
import { h } from "./dom.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {import("./settings_types.js").SecretInfo} SecretInfo */

/** @param {string} text @returns {string[]} one origin per line or comma */
function lines(text) {
  return text.split(/[\n,]/).map((l) => l.trim()).filter(Boolean);
}

/**
 * The Secrets fieldset. Each button calls the host at once (not on "Save settings") and then
 * `reload()`s the settings view, which renders this again.
 * @param {HostClient} client @param {SecretInfo[]} secrets @param {() => Promise<unknown>} reload
 */
export function secretsFieldset(client, secrets, reload) {
  const status = h("p", { class: "small", role: "status", "aria-live": "polite" });
  /** @param {string} method @param {Record<string, unknown>} params */
  const call = async (method, params) => {
    try {
      await client.call(method, params);
      await reload();
    } catch (e) {
      status.textContent = errorMessage(e);
      status.className = "small bad";
    }
  };
  const button = (/** @type {string} */ text, /** @type {() => void} */ onclick) => h("button", { type: "button", text, onclick });
  const rows = secrets.map((secret) => {
    const origins = h("textarea", { rows: 2, spellcheck: "false", "aria-label": `Sites ${secret.name} may be typed on`, value: secret.origins.join("\n") });
    const grantClient = h("input", { type: "text", placeholder: "MCP client name", "aria-label": `MCP client to grant ${secret.name} to`, spellcheck: "false" });
    const grantOrigin = h("input", { type: "text", placeholder: secret.origins[0] || "https://site.example", "aria-label": `Site to grant ${secret.name} on`, spellcheck: "false" });
    return h("div", { class: "secret", dataset: { secret: secret.name } },
      h("p", { text: secret.origins.length ? `{{secret:${secret.name}}}` : `{{secret:${secret.name}}}: bound to no site, so it cannot be typed until you add one` }),
      origins,
      h("div", { class: "actions" },
        button("Save sites", () => void call("secrets.bind", { name: secret.name, origins: lines(/** @type {HTMLTextAreaElement} */ (origins).value) })),
        button("Delete", () => void call("secrets.delete", { name: secret.name }))),
      ...secret.grants.map((g) => h("p", { class: "small" }, `${g.client} may type it on ${g.origin} `,
        button("Revoke", () => void call("secrets.grant", { name: secret.name, client: g.client, origin: g.origin, granted: false })))),
      h("div", { class: "actions" }, grantClient, grantOrigin,
        button("Grant to MCP client", () => void call("secrets.grant", {
          name: secret.name, client: /** @type {HTMLInputElement} */ (grantClient).value.trim(),
          origin: /** @type {HTMLInputElement} */ (grantOrigin).value.trim() || secret.origins[0] || "" }))));
  });
  const name = h("input", { id: "secret-name", type: "text", placeholder: "BANK_PASSWORD", spellcheck: "false" });
  const value = h("input", { id: "secret-value", type: "password", autocomplete: "off" });
  const sites = h("textarea", { id: "secret-origins", rows: 2, spellcheck: "false", placeholder: "https://bank.example" });
  return h("fieldset", { class: "secrets" },
    h("legend", { text: "Secrets" }),
    h("p", { class: "muted small", text: "A task types a secret only where it names {{secret:NAME}}, and only on the sites you list for it." }),
    ...rows,
    h("label", { class: "field" }, h("span", { text: "Name" }), name),
    h("label", { class: "field" }, h("span", { text: "Value" }), value),
    h("label", { class: "field" }, h("span", { text: "Sites it may be typed on (one origin per line)" }), sites),
    h("div", { class: "actions" },
      button("Store secret", () => {
        const params = { name: /** @type {HTMLInputElement} */ (name).value.trim(), value: /** @type {HTMLInputElement} */ (value).value,
          origins: lines(/** @type {HTMLTextAreaElement} */ (sites).value) };
        /** @type {HTMLInputElement} */ (value).value = "";
        void call("secrets.set", params);
      })),
    status);
}
