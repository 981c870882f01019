// @ts-check
/**
 * A saved workflow's schedule in the Workflows view: when it runs (or "Not scheduled"), its last
 * result, and the user's controls to schedule it (choosing which of its answer's fields count for a
 * notification: none ticked, every field counts, as `waymark workflow schedule` without `--field`),
 * pause, resume and remove it. Every change goes
 * through the host (host/rpc/schedules.py: schedule.list, schedule.set, schedule.pause,
 * schedule.resume, schedule.remove), methods MCP clients may not call.
 */
import { errorMessage } from "../shared/errors.js";
import { h } from "./dom.js";

/** @typedef {import("./host_client.js").HostClient} HostClient */
/**
 * A schedule as `schedule.list` lists it.
 * @typedef {{workflow: string, when: string, paused: boolean, next: string|null, fields?: string[],
 *   last: {outcome: string, started: string, reason?: string, changed?: Array<{field: string}>}|null}} ScheduleRow
 */

/** The schedules by workflow name. @param {HostClient} client @returns {Promise<Map<string, ScheduleRow>>} */
export async function loadSchedules(client) {
  const data = await client.call("schedule.list", {});
  return new Map((/** @type {ScheduleRow[]} */ (data.schedules || [])).map((row) => [row.workflow, row]));
}

/** A local time stamp as "Mon 08:00". @param {string} stamp */
function shortTime(stamp) {
  const when = new Date(stamp);
  return Number.isNaN(when.getTime()) ? stamp : when.toLocaleString(undefined, { weekday: "short", hour: "2-digit", minute: "2-digit" });
}

/** An answer field's path as the user reads it: `$.total` is "total". @param {string} path */
const fieldName = (path) => path.replace(/^\$\./, "");

/** What the last run did, in a few words. @param {ScheduleRow["last"]} last */
function lastResult(last) {
  if (!last) return "Never ran yet.";
  const changed = last.changed?.length ? `, changed: ${last.changed.map((c) => fieldName(c.field)).join(", ")}` : "";
  const why = last.outcome !== "done" && last.outcome !== "running" && last.reason ? ` (${last.reason})` : "";
  return `Last run ${shortTime(last.started)}: ${last.outcome}${changed}${why}`;
}

/**
 * The schedule block of one workflow's item; `fields` are its answer's fields (JSON paths), and
 * `changed` is called after each change the host made.
 * @param {HostClient} client @param {string} name @param {ScheduleRow|undefined} row @param {string[]} fields
 * @param {() => Promise<void>} changed
 */
export function scheduleBlock(client, name, row, fields, changed) {
  const status = h("p", { class: "schedule-status", role: "status" });
  /** @param {string} method @param {Record<string, unknown>} params */
  const call = async (method, params) => {
    try {
      await client.call(method, { name, ...params });
      await changed();
    } catch (e) {
      status.textContent = `Not changed: ${errorMessage(e)}`;
    }
  };
  const summary = row
    ? h("p", { class: "schedule-when", text: `Runs ${row.when}${row.paused ? " · paused" : row.next ? ` · next ${shortTime(row.next)}` : ""}` })
    : h("p", { class: "schedule-when muted", text: "Not scheduled" });
  const counted = row && fields.length
    ? h("p", { class: "muted schedule-fields", text: row.fields?.length ? `Notifies when ${row.fields.map(fieldName).join(", ")} changes` : "Notifies when any answer field changes" })
    : null;
  const controls = row
    ? h("div", { class: "row schedule-controls" },
      h("button", { type: "button", class: "small", onclick: () => call(row.paused ? "schedule.resume" : "schedule.pause", {}) }, row.paused ? "Resume" : "Pause"),
      h("button", { type: "button", class: "small", onclick: () => call("schedule.remove", {}) }, "Remove schedule"))
    : scheduleForm(call, fields);
  return h("div", { class: "schedule", dataset: { scheduled: row ? (row.paused ? "paused" : "active") : "none" } },
    summary, counted, row ? h("p", { class: "muted schedule-last", text: lastResult(row.last) }) : null, controls, status);
}

/**
 * The form that schedules a workflow, with a box per answer field to count for notifications.
 * @param {(method: string, params: Record<string, unknown>) => Promise<void>} call @param {string[]} fields
 */
function scheduleForm(call, fields) {
  const kind = h("select", { "aria-label": "Schedule" },
    h("option", { value: "minutes" }, "Every N minutes"), h("option", { value: "hours" }, "Every N hours"),
    h("option", { value: "daily" }, "Daily at"), h("option", { value: "weekdays" }, "Weekdays at"));
  const count = h("input", { type: "number", min: "1", value: "1", "aria-label": "How many", class: "schedule-count" });
  const at = h("input", { type: "time", value: "08:00", "aria-label": "Time of day", hidden: true });
  const approve = h("input", { type: "checkbox" });
  const boxes = fields.map((path) => h("input", { type: "checkbox", value: path }));
  const counted = boxes.length
    ? h("fieldset", { class: "schedule-fields" }, h("legend", { class: "muted" }, "Notify when these change (none ticked: any field)"),
      boxes.map((box) => h("label", { class: "check" }, box, ` ${fieldName(box.value)}`)))
    : null;
  kind.addEventListener("change", () => {
    const clock = kind.value === "daily" || kind.value === "weekdays";
    count.hidden = clock;
    at.hidden = !clock;
  });
  return h("form", { class: "row schedule-form", onsubmit: (/** @type {Event} */ e) => {
    e.preventDefault();
    const every = kind.value === "minutes" ? `${count.value}m` : kind.value === "hours" ? `${count.value}h` : undefined;
    const ticked = boxes.filter((box) => box.checked).map((box) => box.value);
    void call("schedule.set", { ...(every ? { every } : { [kind.value]: at.value }), fields: ticked, approve_destructive: approve.checked });
  } }, kind, count, at, h("button", { type: "submit", class: "small" }, "Schedule"), counted,
  h("label", { class: "muted" }, approve, " Let scheduled runs do its destructive steps (nobody confirms them)"));
}
