// The outbox: a request kept on the phone (IndexedDB, shared/phoneDb.js) until the server has it. Weak Wi-Fi in a
// hall must not lose a result: the page stores it first, then sends. No answer, a timeout, 408, 429 or a 5xx keep it
// and schedule the next try with back-off (2 s, 4 s, … up to a minute, or the server's Retry-After); only a definite
// 4xx drops it, and the page shows why. Sent once: the result's PUT carries the table's version, so a copy that
// lands twice (its first answer lost) is refused as version_conflict, never counted twice; and two tabs of the same
// table send one after the other (a Web Lock per request), the second finding the queue empty.
import { call, retryLater } from "./api.js";
import { phoneDb } from "./phoneDb.js";

const BACKOFF_MS = [2000, 4000, 8000, 15000, 30000, 60000];

// A request the phone's storage refused (full, or blocked mid-way): kept in memory for the page's life and sent
// the same way, rather than lost with the tap that made it.
const unsaved = new Map();
async function store(key, req) {
  try {
    await phoneDb.put("outbox", key, req);
    unsaved.delete(key);
  } catch (e) {
    unsaved.set(key, req);
  }
}

const oneAtATime = (key, fn) => (typeof navigator !== "undefined" && navigator.locks
  ? navigator.locks.request(`outbox:${key}`, fn) : fn());

export const outbox = {
  async get(key) {
    if (unsaved.has(key)) return unsaved.get(key);
    try { return (await phoneDb.get("outbox", key)) || null; } catch (e) { return null; }
  },
  async put(key, req) {
    // as JSON: the request goes out as JSON anyway, and IndexedDB refuses Vue's reactive copies of the deals
    await store(key, JSON.parse(JSON.stringify({ tries: 0, nextAt: 0, at: Date.now(), ...req })));
  },
  async drop(key) {
    unsaved.delete(key);
    // a copy the storage failed to delete is sent again later: refused as version_conflict, recognised as ours
    try { await phoneDb.delete("outbox", key); } catch (e) { /* see above */ }
  },
  /** When the kept request may be sent again (ms since the epoch), or null when nothing is kept. */
  async due(key) {
    const req = await this.get(key);
    return req ? req.nextAt || 0 : null;
  },
  /** Sends the kept request: {state: "sent", data} | {state: "later", at, error} (kept) | {state: "empty"};
   *  throws the ApiError when the server said a definite no (then it is dropped). */
  flush(key) {
    return oneAtATime(key, async () => {
      const req = await this.get(key);
      if (!req) return { state: "empty" };
      try {
        const data = await call(req.name, { params: req.params, as: req.as, body: req.body, retries: 1 });
        await this.drop(key);
        return { state: "sent", data };
      } catch (e) {
        if (!retryLater(e.status)) {
          await this.drop(key);
          throw e;
        }
        const tries = (req.tries || 0) + 1;
        const wait = e.retryAfter !== null && e.retryAfter !== undefined
          ? Math.min(300000, e.retryAfter * 1000) : BACKOFF_MS[Math.min(tries - 1, BACKOFF_MS.length - 1)];
        const at = Date.now() + wait;
        if (await this.get(key)) await store(key, { ...req, tries, nextAt: at });
        return { state: "later", at, error: e };
      }
    });
  },
};
