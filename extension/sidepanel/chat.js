// @ts-check
/**
 * Chat mode: a conversation per tab, answers streamed from the host's chat provider (or from
 * Chrome's built-in model when the host has none), optionally about the current page.
 * Answers are rendered with the safe Markdown renderer; the user's text is shown as text.
 */
import { errorCode, errorMessage } from "../shared/errors.js";
import { askBuiltin, BUILTIN_LABEL, builtinAvailability } from "./builtin_model.js";
import { byId, clear, h } from "./dom.js";
import { renderMarkdown } from "./markdown.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {import("./host_status.js").HostStatus} HostStatus */
/** @typedef {import("./current_tab.js").CurrentTab} CurrentTab */
/**
 * What `chat.send` answers (host/rpc/chat.py).
 * @typedef {{text?: string, blocked?: boolean, provider?: string, model?: string,
 *   usage?: {input_tokens: number, output_tokens: number}|null, page?: {title?: string, url?: string}|null}} ChatReply
 */

/**
 * @typedef {Object} ChatMessage
 * @property {"user"|"assistant"} role
 * @property {string} text
 * @property {boolean=} pending   still streaming
 * @property {boolean=} stopped   the user stopped it
 * @property {boolean=} blocked   the model declined to answer (a refusal or a content filter); its words are the text
 * @property {string=} notice     a status line (e.g. the worker restarted and the question was asked again)
 * @property {{code: string, message: string}=} error
 * @property {string=} source     who answered: "provider/model" or the built-in label
 * @property {string=} usage
 * @property {string=} page       title of the page attached as context
 * @property {string=} pageUrl    address of that page: the answer's relative links are relative to it
 */

const STORAGE_PREFIX = "waymark.chat.";
/** Messages of a tab's conversation kept and sent as context. */
const HISTORY_LIMIT = 60;

export class ChatView {
  /** @param {{client: HostClient, status: HostStatus, tab: CurrentTab}} deps */
  constructor(deps) {
    this.client = deps.client;
    this.status = deps.status;
    this.tab = deps.tab;
    /** @type {Map<string, ChatMessage[]>} */
    this.histories = new Map();
    /** @type {{cancel: () => void}|null} */
    this.running = null;
    /** The host's chat role, once settings are known; "" = not configured. */
    this.hostChat = /** @type {string|null} */ (null);
    this.builtin = "absent";
    this.renderQueued = false;
    this.log = byId("chat-log");
    this.input = /** @type {HTMLTextAreaElement} */ (byId("chat-input"));
    this.usePage = /** @type {HTMLInputElement} */ (byId("chat-use-page"));
    this.sendButton = /** @type {HTMLButtonElement} */ (byId("chat-send"));
    this.stopButton = /** @type {HTMLButtonElement} */ (byId("chat-stop"));
    byId("chat-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.send();
    });
    this.input.addEventListener("keydown", (e) => {
      // Enter sends, Shift+Enter is a new line (the usual chat convention).
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.send();
      }
    });
    this.stopButton.addEventListener("click", () => this.stop());
    byId("chat-clear").addEventListener("click", () => this.clearConversation());
    this.tab.onChange(() => this.render());
    // A closed tab's conversation is gone with it.
    chrome.tabs.onRemoved.addListener((tabId) => {
      this.histories.delete(String(tabId));
      void chrome.storage.session.remove(STORAGE_PREFIX + tabId);
    });
  }

  async start() {
    this.builtin = await builtinAvailability();
    this.renderModelLabel();
    this.render();
  }

  /** @param {{provider: string, model: string}} chatRole  the host's chat settings */
  setHostChat(chatRole) {
    this.hostChat = chatRole.provider ? `${chatRole.provider}/${chatRole.model || "default"}` : "";
    this.renderModelLabel();
  }

  /** Answers come from Chrome's model only when the host cannot give one and the browser can. */
  useBuiltin() {
    const builtinReady = this.builtin === "available" || this.builtin === "downloadable" || this.builtin === "downloading";
    return builtinReady && (this.hostChat === "" || !this.status.connected);
  }

  renderModelLabel() {
    const label = byId("chat-model");
    label.classList.toggle("builtin", this.useBuiltin());
    if (this.useBuiltin()) label.textContent = BUILTIN_LABEL;
    else if (this.hostChat) label.textContent = `Chat model: ${this.hostChat}`;
    else if (this.hostChat === "") label.textContent = "No chat model yet: set one up above, or in Settings.";
    else label.textContent = "";
  }

  key() {
    return String(this.tab.tabId ?? "none");
  }

  /** @returns {ChatMessage[]} */
  history() {
    const key = this.key();
    let list = this.histories.get(key);
    if (!list) {
      list = [];
      this.histories.set(key, list);
      void this.restore(key, list);
    }
    return list;
  }

  /** @param {string} key @param {ChatMessage[]} list */
  async restore(key, list) {
    const stored = (await chrome.storage.session.get(STORAGE_PREFIX + key))[STORAGE_PREFIX + key];
    if (Array.isArray(stored) && list.length === 0) {
      list.push(...stored);
      this.render();
    }
  }

  /** @param {string} key */
  persist(key) {
    const list = (this.histories.get(key) || []).filter((m) => !m.pending).slice(-HISTORY_LIMIT);
    void chrome.storage.session.set({ [STORAGE_PREFIX + key]: list });
  }

  clearConversation() {
    if (this.running) return;
    this.histories.set(this.key(), []);
    this.persist(this.key());
    this.render();
    this.input.focus();
  }

  /** @param {boolean} busy */
  setBusy(busy) {
    this.sendButton.hidden = busy;
    this.stopButton.hidden = !busy;
    this.log.setAttribute("aria-busy", String(busy));
  }

  stop() {
    this.running?.cancel();
  }

  async send() {
    const question = this.input.value.trim();
    if (!question || this.running) return;
    const key = this.key();
    const history = this.history();
    history.push({ role: "user", text: question });
    /** @type {ChatMessage} */
    const answer = { role: "assistant", text: "", pending: true };
    history.push(answer);
    this.input.value = "";
    this.setBusy(true);
    this.render();
    const context = history
      .filter((m) => m !== answer && !m.error && m.text)
      .slice(-HISTORY_LIMIT)
      .map((m) => ({ role: m.role, text: m.text }));
    try {
      if (this.useBuiltin()) await this.askBuiltin(context, answer);
      else await this.askHost(context, answer, this.usePage.checked);
    } finally {
      answer.pending = false;
      this.running = null;
      this.setBusy(false);
      this.persist(key);
      this.render();
      this.input.focus();
    }
  }

  /**
   * @param {{role: "user"|"assistant", text: string}[]} messages
   * @param {ChatMessage} answer
   */
  async askBuiltin(messages, answer) {
    const controller = new AbortController();
    this.running = { cancel: () => controller.abort() };
    answer.source = BUILTIN_LABEL;
    try {
      await askBuiltin(messages, (text) => {
        answer.text += text;
        this.queueRender();
      }, controller.signal);
    } catch (e) {
      if (controller.signal.aborted) answer.stopped = true;
      else answer.error = { code: "builtin_failed", message: errorMessage(e) };
    }
  }

  /**
   * @param {{role: "user"|"assistant", text: string}[]} messages
   * @param {ChatMessage} answer
   * @param {boolean} usePage
   */
  async askHost(messages, answer, usePage) {
    const params = { messages, tab_id: this.tab.tabId ?? undefined, use_page: usePage };
    for (let attempt = 0; ; attempt++) {
      const call = this.client.start("chat.send", params, {
        turn: true,
        onNotify: (name, data) => {
          if (name !== "delta") return;
          answer.text += String(data.text || "");
          this.queueRender();
        },
      });
      let stopped = false;
      this.running = { cancel: () => { stopped = true; call.cancel(); } };
      try {
        const data = /** @type {ChatReply} */ (await call.done);
        answer.text = String(data.text ?? answer.text);
        answer.source = `${data.provider}/${data.model}`;
        answer.blocked = Boolean(data.blocked);
        if (data.usage) answer.usage = `${data.usage.input_tokens} in · ${data.usage.output_tokens} out`;
        if (data.page) answer.page = String(data.page.title || data.page.url || "this page");
        if (data.page?.url) answer.pageUrl = String(data.page.url);
        this.status.reportProvider(null);
        return;
      } catch (e) {
        const code = errorCode(e);
        if (code === "cancelled" || stopped) {
          answer.stopped = true;
          return;
        }
        if (code === "worker_restarted" && attempt === 0) {
          // The worker (and the host with it) went away mid-answer: a question has no side
          // effects, so ask it again once on the fresh worker.
          answer.text = "";
          answer.notice = "The extension's background worker restarted mid-answer; asked again.";
          this.render();
          await this.waitForHost();
          continue;
        }
        answer.error = { code: code || "error", message: errorMessage(e) };
        if (code === "worker_restarted") answer.error.message = "The extension's background worker restarted twice during this answer. Try again.";
        this.status.reportProvider(answer.error);
        return;
      }
    }
  }

  /** Wait (bounded) until the panel's worker reports a connected host again. */
  async waitForHost() {
    for (let i = 0; i < 100 && !(this.client.port && this.status.connected); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** While an answer streams, only its own element is rebuilt, once per frame. */
  queueRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      const history = this.history();
      const last = history[history.length - 1];
      const shown = this.log.lastElementChild;
      if (!last || !shown || !shown.classList.contains("msg") || this.log.children.length !== history.length) {
        this.render();
        return;
      }
      shown.replaceWith(renderMessage(last));
      this.log.scrollTop = this.log.scrollHeight;
    });
  }

  render() {
    const history = this.history();
    clear(this.log);
    if (!history.length) {
      this.log.append(h("p", { class: "empty", text: "Ask anything about the page you are on. Tick “Use this page” to send it along." }));
      return;
    }
    for (const message of history) this.log.append(renderMessage(message));
    this.log.scrollTop = this.log.scrollHeight;
  }
}

/** @param {ChatMessage} m */
function renderMessage(m) {
  const body = h("div", { class: "bubble" });
  if (m.role === "user") body.textContent = m.text;
  else if (m.text) body.append(renderMarkdown(m.text, m.pageUrl || ""));
  else if (m.pending) body.append(h("span", { class: "thinking", text: "Thinking…" }));
  const meta = [m.source, m.usage, m.page ? `page: ${m.page}` : "", m.stopped ? "stopped" : "", m.blocked ? "the model declined to answer" : ""].filter(Boolean).join(" · ");
  return h("article", { class: `msg msg-${m.role}`, dataset: { role: m.role, state: m.pending ? "pending" : m.error ? "error" : m.stopped ? "stopped" : m.blocked ? "blocked" : "done" } },
    m.notice ? h("p", { class: "notice", role: "status", text: m.notice }) : null,
    (m.text || m.pending || m.role === "user") ? body : null,
    m.error ? h("p", { class: "msg-error", role: "alert", text: m.error.message, dataset: { code: m.error.code } }) : null,
    meta ? h("footer", { class: "meta", text: meta }) : null,
  );
}
