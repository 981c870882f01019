// @ts-check
/**
 * Scheduled workflows: one alarm wakes the worker about once a minute while the browser runs and
 * asks the host what is due (`schedule.tick`); the host replays it in a background tab of its own
 * and answers with what is worth telling the user, shown as a notification whose click opens the
 * run's trace. The worker decides nothing: what is due, and what is news, are the host's.
 */
import { acquireKeepalive } from "./keepalive.js";

const ALARM = "waymark-schedules";
/** A notification's id is this prefix and the trace folder its click opens. */
const NOTIFICATION = "waymark-run:";
/** How long a worker just woken by the alarm waits for its native port before skipping this tick. */
const CONNECT_WAIT_MS = 10000;

/** @typedef {{workflow: string, run_id: string, title: string, message: string, trace: string, why: string}} RunNews */
/** @typedef {{ran: Record<string, unknown>[], notify: RunNews[]}} TickReply */

/**
 * Resolve true once the channel is connected, false after `ms`.
 * @param {import("./native.js").NativeChannel} channel @param {number} ms @returns {Promise<boolean>}
 */
function connected(channel, ms) {
  if (channel.state.status === "connected") return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => { stop(); resolve(false); }, ms);
    const stop = channel.subscribe((state) => {
      if (state.status !== "connected") return;
      clearTimeout(timer);
      stop();
      resolve(true);
    });
  });
}

/**
 * Ask the host to run what is due and notify what it says is news. `params.now` (tests only, via
 * the diagnostic build) is the time the host decides by.
 * @param {import("./native.js").NativeChannel} channel @param {Record<string, unknown>=} params
 * @returns {Promise<TickReply>}
 */
export async function tickSchedules(channel, params = {}) {
  if (!(await connected(channel, CONNECT_WAIT_MS))) return { ran: [], notify: [] };
  // A replay outlasts the worker's idle limit: hold it awake until the host answers.
  const release = await acquireKeepalive();
  try {
    const reply = /** @type {TickReply} */ (/** @type {unknown} */ (await channel.call("schedule.tick", params)));
    for (const news of reply.notify) {
      await chrome.notifications.create(`${NOTIFICATION}${news.trace}`, {
        type: "basic", iconUrl: chrome.runtime.getURL("icons/icon128.png"), title: news.title, message: news.message, priority: 0,
      });
    }
    return reply;
  } finally {
    await release();
  }
}

/** @param {import("./native.js").NativeChannel} channel */
export function registerSchedules(channel) {
  void chrome.alarms.get(ALARM).then((alarm) => {
    if (!alarm) void chrome.alarms.create(ALARM, { delayInMinutes: 1, periodInMinutes: 1 });
  });
  chrome.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name !== ALARM) return;
    void tickSchedules(channel).catch((e) => console.warn("waymark: scheduled runs:", e));
  });
  chrome.notifications.onClicked.addListener((id) => {
    if (!id.startsWith(NOTIFICATION)) return;
    void chrome.tabs.create({ url: `file://${id.slice(NOTIFICATION.length)}` });
    void chrome.notifications.clear(id);
  });
}
