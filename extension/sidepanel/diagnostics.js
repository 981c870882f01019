// @ts-check
/**
 * The diagnostics panel (shown when the setting is on): calls, errors and success-only latency
 * per provider and phase, as counted by the host, plus the native round trip.
 */
import { errorMessage } from "../shared/errors.js";
import { byId, clear, h } from "./dom.js";
import { PROVIDER_SHORT_NAMES } from "./provider_names.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/**
 * One row of `diagnostics.get` (host/rpc/diagnostics.py): a provider and phase's calls.
 * @typedef {{provider: string, phase: string, calls: number, ok: number, errors: Record<string, number>,
 *   latency: {n: number, mean_ms: number, p50_ms: number, p95_ms: number, max_ms: number}|null}} DiagnosticsRow
 */

const REFRESH_MS = 2000;

export class DiagnosticsView {
  /** @param {{client: HostClient}} deps */
  constructor(deps) {
    this.client = deps.client;
    this.root = byId("diagnostics-table");
    /** @type {ReturnType<typeof setInterval>|null} */
    this.timer = null;
    byId("diagnostics-reset").addEventListener("click", async () => {
      await this.client.call("diagnostics.reset").catch(() => {});
      await this.refresh();
    });
  }

  /** @param {boolean} visible */
  setVisible(visible) {
    if (visible && !this.timer) {
      void this.refresh();
      this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    } else if (!visible && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  async refresh() {
    let rows;
    try {
      rows = /** @type {DiagnosticsRow[]} */ ((await this.client.call("diagnostics.get")).rows);
    } catch (e) {
      clear(this.root);
      this.root.append(h("p", { class: "muted", text: `Diagnostics unavailable: ${errorMessage(e)}` }));
      return;
    }
    clear(this.root);
    if (await chrome.extension.isAllowedFileSchemeAccess().catch(() => false)) {
      this.root.append(h("p", { class: "warning", role: "alert", text: "Waymark may read local files: turn off \u201cAllow access to file URLs\u201d on its card in chrome://extensions. The agent opens file: URLs only in the folders your settings list." }));
    }
    if (!rows.length) {
      this.root.append(h("p", { class: "muted", text: "No model calls yet since the host started." }));
      return;
    }
    const ms = (/** @type {number|undefined} */ v) => (v === undefined ? "–" : `${Math.round(v)}`);
    this.root.append(h("table", {},
      h("caption", { text: "Model calls since the host started (latency of successful calls, ms)" }),
      h("thead", {}, h("tr", {}, ["provider", "phase", "calls", "ok", "errors", "p50", "p95", "max"].map((c) => h("th", { scope: "col", text: c })))),
      h("tbody", {}, rows.map((r) => h("tr", { dataset: { provider: r.provider, phase: r.phase } },
        h("td", { text: PROVIDER_SHORT_NAMES[r.provider] || r.provider }), h("td", { text: r.phase }), h("td", { class: "num", text: r.calls }), h("td", { class: "num", text: r.ok }),
        h("td", { class: "errors", text: Object.entries(r.errors).map(([code, n]) => `${code} ×${n}`).join(", ") || "–" }),
        h("td", { class: "num", text: ms(r.latency?.p50_ms) }), h("td", { class: "num", text: ms(r.latency?.p95_ms) }), h("td", { class: "num", text: ms(r.latency?.max_ms) }),
      ))),
    ));
  }
}
