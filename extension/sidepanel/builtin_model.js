// @ts-check
/**
 * Chrome's built-in model (the Prompt API, `LanguageModel`) as a chat-only fallback: used
 * when the host has no chat provider configured and the browser offers the API. It answers
 * questions and nothing more: no tools, no page actions, no agent mode.
 */

export const BUILTIN_LABEL = "Chrome built-in model · chat only (no tools, no page actions)";
const SYSTEM = "You are a helpful assistant in a browser side panel. Answer concisely in Markdown.";

/**
 * The part of the Prompt API used here (TypeScript's DOM types do not have it yet).
 * @typedef {{promptStreaming(input: string, options: {signal: AbortSignal}): ReadableStream<string>, destroy?: () => void}} LanguageModelSession
 * @typedef {{availability(): Promise<string>,
 *   create(options: {initialPrompts: {role: string, content: string}[], signal: AbortSignal}): Promise<LanguageModelSession>}} LanguageModelApi
 */

/** @returns {LanguageModelApi|undefined} the LanguageModel constructor, when this browser has it */
function api() {
  return /** @type {{LanguageModel?: LanguageModelApi}} */ (globalThis).LanguageModel;
}

/**
 * Whether the built-in model can be used: "available", "downloadable", "downloading",
 * "unavailable", or "absent" when the browser has no Prompt API at all.
 * @returns {Promise<string>}
 */
export async function builtinAvailability() {
  const LanguageModel = api();
  if (!LanguageModel) return "absent";
  try {
    return String(await LanguageModel.availability());
  } catch {
    return "unavailable";
  }
}

/**
 * Stream an answer from the built-in model.
 * @param {{role: "user"|"assistant", text: string}[]} messages  the conversation, last one the question
 * @param {(text: string) => void} onDelta
 * @param {AbortSignal} signal
 * @returns {Promise<string>} the whole answer
 */
export async function askBuiltin(messages, onDelta, signal) {
  const LanguageModel = api();
  if (!LanguageModel) throw new Error("this browser has no built-in model");
  const history = messages.slice(0, -1).map((m) => ({ role: m.role, content: m.text }));
  const session = await LanguageModel.create({ initialPrompts: [{ role: "system", content: SYSTEM }, ...history], signal });
  try {
    const stream = session.promptStreaming(messages[messages.length - 1].text, { signal });
    const reader = stream.getReader();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += String(value);
      onDelta(String(value));
    }
    return text;
  } finally {
    session.destroy?.();
  }
}
