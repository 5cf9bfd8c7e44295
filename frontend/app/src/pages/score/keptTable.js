// The last answer of each table this phone opened, kept in IndexedDB (shared/phoneDb.js): a table page reloaded
// without the hall's Wi-Fi shows the table as it last saw it (its sides, its status, the deals entered), marked as
// kept, until the network answers again. Kept per table and code for three days (a long day, a two-day event), then
// dropped when a table page opens.
import { phoneDb } from "../../shared/phoneDb.js";

const KEEP_MS = 3 * 24 * 3600 * 1000;
const keyOf = (where, code) => `${where.eid}:${where.n}:${where.t}:${code}`;

/** Keeps a table's answer as the API gave it (a plain object: never Vue's reactive copy, which IndexedDB refuses). */
export async function keepTable(where, code, view, etag) {
  try {
    await phoneDb.put("tables", keyOf(where, code), { view, etag: etag || null, at: Date.now() });
  } catch (e) { /* storage full or blocked: the page works on, online only */ }
}

/** {view, etag, at} as last kept, or null (none, or older than three days). */
export async function keptTable(where, code) {
  try {
    const kept = await phoneDb.get("tables", keyOf(where, code));
    return kept && Date.now() - kept.at < KEEP_MS ? kept : null;
  } catch (e) {
    return null;
  }
}

export async function forgetOldTables() {
  try {
    for (const key of await phoneDb.keys("tables")) {
      const kept = await phoneDb.get("tables", key);
      if (!kept || Date.now() - kept.at >= KEEP_MS) await phoneDb.delete("tables", key);
    }
  } catch (e) { /* next time */ }
}
