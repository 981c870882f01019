// @ts-check
/**
 * Bookkeeping of in-flight side-panel turns (a chat answer, an agent run), kept in
 * chrome.storage.session so it outlives the worker. A worker that starts and finds turns
 * written by another worker instance knows they were cut off mid-way (the worker was stopped
 * or crashed, and the native port and the host's work with it): it reports them to panels as
 * interrupted, so no panel waits forever for a reply that cannot come.
 */

const KEY = "waymark.turns";
/** Interrupted turns are reported for this long, then forgotten. */
const INTERRUPTED_TTL_MS = 10 * 60 * 1000;
/** Identifies this worker instance; turns written by another instance are orphans. */
const WORKER_ID = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/**
 * @typedef {Object} Turn
 * @property {string} id       the panel's id of the call
 * @property {string} method   the host method (chat.send, agent.run)
 * @property {number} started  epoch ms
 * @property {string} worker   the worker instance that ran it
 * @property {number=} interruptedAt  set once a later worker found it orphaned
 */

/** @returns {Promise<Record<string, Turn>>} */
async function load() {
  const got = await chrome.storage.session.get(KEY);
  return /** @type {Record<string, Turn>} */ (got[KEY] || {});
}

/** Writes are serialised: two turns ending at once must not lose each other's update. */
let writes = Promise.resolve();

/** @param {(turns: Record<string, Turn>) => void} change */
function update(change) {
  writes = writes.then(async () => {
    const turns = await load();
    change(turns);
    await chrome.storage.session.set({ [KEY]: turns });
  }).catch((e) => console.warn("waymark turns:", e));
  return writes;
}

/** Mark every turn of an earlier worker as interrupted (runs once, when this worker starts). */
const recovered = update((turns) => {
  const now = Date.now();
  for (const [id, turn] of Object.entries(turns)) {
    if (turn.interruptedAt && now - turn.interruptedAt > INTERRUPTED_TTL_MS) delete turns[id];
    else if (turn.worker !== WORKER_ID && !turn.interruptedAt) turn.interruptedAt = now;
  }
});

/** @param {string} id @param {string} method */
export async function beginTurn(id, method) {
  await recovered;
  await update((turns) => { turns[id] = { id, method, started: Date.now(), worker: WORKER_ID }; });
}

/** @param {string} id */
export async function endTurn(id) {
  await update((turns) => { delete turns[id]; });
}

/**
 * Turns an earlier worker instance did not finish; each is reported until acknowledged.
 * @returns {Promise<Turn[]>}
 */
export async function interruptedTurns() {
  await recovered;
  await writes;
  return Object.values(await load()).filter((t) => t.interruptedAt);
}

/** @param {string[]} ids  turns a panel has shown as interrupted */
export async function acknowledgeTurns(ids) {
  await update((turns) => { for (const id of ids) delete turns[id]; });
}
