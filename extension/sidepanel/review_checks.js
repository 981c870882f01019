// @ts-check
/**
 * A recorded step's checks in the review (extension/sidepanel/recorder.js): each proposed check the
 * user keeps (ticked) or drops, changes (the text the page shows, the part of the address, the
 * title, the value a field holds, how many of a list) or swaps for another kind of check, and checks
 * the user writes. The host validates every check changed or written (workflow.record_check): one
 * that is not a check is refused with its reason and the step keeps the check it had.
 */
import { errorMessage } from "../shared/errors.js";
import { h } from "./dom.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/** @typedef {{check: Record<string, any>, says: string}} StepCheck */

/** The checks whose whole argument is text, as the user picks among them. */
const TEXT_KINDS = [["text_present", "The page shows"], ["url_contains", "The address holds"], ["title_contains", "The title holds"]];

/**
 * The part of a check the user may change, as text, or null when there is none to change (a checked
 * box, an element gone, a secret's value).
 * @param {Record<string, any>} check @returns {{kind: string, text: string}|null}
 */
function editable(check) {
  const [[kind, arg]] = Object.entries(check);
  if (TEXT_KINDS.some(([k]) => k === kind)) return { kind, text: String(arg) };
  if (kind === "count_at_least" && typeof arg?.n === "number") return { kind, text: String(arg.n) };
  if ((kind === "value_equals" || kind === "state") && typeof arg?.value === "string" && !arg.value.includes("{{secret:")) return { kind, text: arg.value };
  return null;
}

/**
 * The check with its changed part: a text check of the kind chosen, else the same check holding the new value.
 * @param {Record<string, any>} check @param {string} kind @param {string} text @returns {Record<string, any>}
 */
function changed(check, kind, text) {
  if (TEXT_KINDS.some(([k]) => k === kind)) return { [kind]: text };
  const [[name, arg]] = Object.entries(check);
  return name === "count_at_least" ? { [name]: { ...arg, n: Number(text) } } : { [name]: { ...arg, value: text } };
}

/**
 * The checks of one step, kept in `step.checks` as the user changes them; a box per check says
 * whether it is kept (`input[data-check=N]`).
 * @param {HostClient} client @param {{checks: StepCheck[]}} step @param {number} index the step's place (from 0)
 * @param {string} empty what to say when the step has no check
 */
export function checksBlock(client, step, index, empty) {
  const list = h("div", { class: "checks" });
  const none = h("p", { class: "muted no-check", text: empty, hidden: step.checks.length > 0 });
  const write = h("button", { type: "button", class: "small secondary", "aria-label": `Write a check for step ${index + 1}` }, "Write a check");

  /**
   * The editor under a check (or under the step, for a new check): Use asks the host, Cancel closes it.
   * @param {StepCheck|null} current @param {(made: StepCheck) => void} done @param {HTMLElement} after
   */
  const editor = (current, done, after) => {
    after.parentElement?.querySelector(".check-editor")?.remove();
    const part = current ? editable(current.check) : { kind: "text_present", text: "" };
    if (!part) return;
    const what = current ? `check ${step.checks.indexOf(current) + 1} of step ${index + 1}` : `the new check of step ${index + 1}`;
    const textual = TEXT_KINDS.some(([k]) => k === part.kind);
    const kind = textual ? h("select", { "aria-label": `Kind of ${what}` },
      TEXT_KINDS.map(([k, said]) => h("option", { value: k }, said))) : null;
    if (kind) kind.value = part.kind;
    const text = h("input", { type: part.kind === "count_at_least" ? "number" : "text", value: part.text, "aria-label": `Text of ${what}` });
    // Enter uses the check, as Use does, and never submits the review's form (which saves it).
    text.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); void use(); } });
    const error = h("p", { class: "check-error", role: "alert" });
    const use = async () => {
      try {
        const made = /** @type {StepCheck} */ (await client.call("workflow.record_check",
          { check: current ? changed(current.check, kind?.value ?? part.kind, text.value) : { [kind?.value ?? part.kind]: text.value } }));
        box.remove();
        done(made);
      } catch (e) {
        error.textContent = `Not a check: ${errorMessage(e)}`;
        text.setAttribute("aria-invalid", "true");
      }
    };
    const box = h("div", { class: "check-editor" }, h("div", { class: "row" }, kind, text),
      h("div", { class: "row" }, h("button", { type: "button", class: "small", onclick: () => void use() }, "Use"),
        h("button", { type: "button", class: "small secondary", onclick: () => box.remove() }, "Cancel")), error);
    after.after(box);
    text.focus();
  };

  /** One check's row: its box, its words and, when it has a part to change, Change. @param {StepCheck} item */
  const row = (item) => {
    const i = step.checks.indexOf(item);
    const says = h("span", { class: "says", text: item.says });
    const tick = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", checked: true, dataset: { check: String(i) } }));
    const line = h("div", { class: "check-row" }, h("label", { class: "check" }, tick, " ", says),
      editable(item.check) ? h("button", { type: "button", class: "small secondary", "aria-label": `Change check ${i + 1} of step ${index + 1}`,
        onclick: () => editor(step.checks[i], (made) => {
          step.checks[i] = made;
          says.textContent = made.says;
          tick.checked = true;
        }, line) }, "Change") : null);
    return line;
  };

  list.append(...step.checks.map(row));
  write.addEventListener("click", () => editor(null, (made) => {
    step.checks.push(made);
    none.hidden = true;
    list.append(row(made));
  }, write));
  return h("div", { class: "step-checks" }, list, none, write);
}
