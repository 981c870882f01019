// @ts-check
/**
 * Marking the answer in the review of a recording (extension/sidepanel/recorder.js), when it was
 * not marked while recording or is to be changed: the user picks an element the page the recording
 * ended on listed (its snapshot, as the recorder took it) or types the text as that page showed
 * it. The host grounds it there as a mark made while recording is, with the words around it
 * (workflow.record_answer), and it becomes the step that reads the answer.
 */
import { errorMessage } from "../shared/errors.js";
import { h } from "./dom.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {{role: string, name: string}} Listed */

/** Longest name of an element offered as an answer: longer ones are paragraphs, not values. */
const LONGEST = 100;
/** An amount of money or a percentage as pages write them: `€ 1,249.00`, `$12`, `12.5 %` (a sign before the next amount is not its unit). */
const AMOUNT = /[€$£¥]\s?\d(?:[\d.,]*\d)?|\d(?:[\d.,]*\d)?\s?(?:[€$£¥%]|EUR|USD|GBP)(?![\w]|\s?\d)/g;

/**
 * What a value can be read from on the final page, each once: the elements its snapshot lists,
 * then the pieces of its readable text (its lines, a table row's cells).
 * @param {{elements?: Array<{role?: string, name?: string}>}} page @param {string} text @returns {Listed[]}
 */
export function answerChoices(page, text) {
  const seen = new Set();
  /** @type {Listed[]} */
  const out = [];
  /** @param {string} role @param {string} name */
  const offer = (role, name) => {
    const key = `${role}\u0000${name}`;
    if (!name || name.length > LONGEST || seen.has(key)) return;
    seen.add(key);
    out.push({ role, name });
  };
  for (const e of page.elements || []) offer(String(e.role || ""), (e.name || "").trim());
  // A frame's text follows its `[frame ORIGIN]` mark (sw/page_text.js): the mark itself is no value.
  const lines = text.split("\n").map((line) => line.replace(/\s+/g, " ").trim()).filter((line) => !line.startsWith("[frame "));
  // The amounts a line shows (a table row reads as one line: its total is the value asked for), then the lines themselves.
  for (const line of lines) for (const amount of line.match(AMOUNT) || []) offer("text", amount.trim());
  for (const line of lines) offer("text", line);
  return out;
}

/**
 * The block that marks the answer on `page`; `taken` gives the names already in use, `marked`
 * receives the step the host made of the mark.
 * @param {HostClient} client @param {Record<string, unknown>} page the final page's snapshot @param {string} pageText its readable text
 * @param {() => string[]} taken @param {(step: {answer: {text: string}}) => void} marked
 */
export function answerMarker(client, page, pageText, taken, marked) {
  const choices = answerChoices(/** @type {{elements?: Array<{role?: string, name?: string}>}} */ (page), pageText);
  const pick = h("select", { "aria-label": "Answer on the final page" },
    h("option", { value: "" }, "Choose what the page showed…"),
    choices.map((c, i) => h("option", { value: String(i) }, `${c.role} "${c.name}"`)));
  const text = h("input", { type: "text", "aria-label": "Answer text as the page shows it", placeholder: "or type it as the page shows it" });
  const status = h("p", { class: "answer-status", role: "status" });
  // A choice is put in the text box, where the user may cut it down to the value (a line to its amount).
  pick.addEventListener("change", () => { text.value = pick.value ? choices[Number(pick.value)].name : ""; });
  const mark = async () => {
    const typed = text.value.trim();
    const listed = pick.value ? choices[Number(pick.value)] : null;
    const chosen = listed && listed.name === typed ? listed : null;
    if (!typed) {
      status.textContent = "Choose what the page showed or type the answer's text first.";
      return;
    }
    try {
      // An element chosen as listed keeps its role and name (its field is named after a labelled one); typed text is text.
      const step = /** @type {{answer: {text: string}}} */ (await client.call("workflow.record_answer", {
        page, page_text: pageText, text: typed, role: chosen?.role ?? "text", name: chosen?.name ?? "", taken: taken() }));
      status.textContent = `Marked: ${step.answer.text}`;
      pick.value = "";
      text.value = "";
      marked(step);
    } catch (e) {
      status.textContent = `Not marked: ${errorMessage(e)}`;
    }
  };
  // Enter marks the text typed, and never submits the review's form (which saves it).
  text.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); void mark(); } });
  return h("fieldset", { class: "answer-mark" }, h("legend", {}, "Mark the answer to read"), pick, text,
    h("button", { type: "button", class: "small", onclick: () => void mark() }, "Mark as the answer"), status);
}
