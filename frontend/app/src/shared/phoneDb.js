// What a table phone keeps for itself in IndexedDB (through `idb`, Jake Archibald's 1 KB promise wrapper): the
// results waiting to be sent (the outbox) and the last answer of each table it opened (so a reload without the
// hall's Wi-Fi still shows the table). IndexedDB, not localStorage: it survives where localStorage is trimmed, is
// written in transactions, and its size limit is the phone's free space, not 5 MB shared with the drafts.
// Where IndexedDB cannot be opened (a private window of an old WebView), the same calls fall back to localStorage:
// a result is never refused for want of a database.
import { openDB } from "idb";

const NAME = "cardgames-phone";
const STORES = ["outbox", "tables"];
const LEGACY_OUTBOX = "outbox:";     // the outbox's localStorage keys before v1.3

let opened = null;

// localStorage as the same tiny key-value interface, keys prefixed by their store's name (the outbox's are the
// legacy ones, so an old page and a new page on the same phone read the same queue)
const local = {
  async get(store, key) {
    const raw = localStorage.getItem(`${store}:${key}`);
    return raw ? JSON.parse(raw) : undefined;
  },
  async put(store, key, value) { localStorage.setItem(`${store}:${key}`, JSON.stringify(value)); },
  async delete(store, key) { localStorage.removeItem(`${store}:${key}`); },
  async keys(store) {
    return Object.keys(localStorage).filter((k) => k.startsWith(`${store}:`)).map((k) => k.slice(store.length + 1));
  },
};

/** Moves the results an older version of the page queued in localStorage into IndexedDB, each one only if the
 *  database has none under its key, and removes it from localStorage only once the database has it (a phone that
 *  takes the new version mid-day keeps every queued result, even if it is closed halfway through). */
async function migrate(db) {
  const keys = Object.keys(localStorage).filter((k) => k.startsWith(LEGACY_OUTBOX));
  if (!keys.length) return;
  const tx = db.transaction("outbox", "readwrite");
  for (const k of keys) {
    const key = k.slice(LEGACY_OUTBOX.length);
    let req = null;
    try { req = JSON.parse(localStorage.getItem(k)); } catch (e) { req = null; }
    if (req && !(await tx.store.get(key))) await tx.store.put(req, key);
  }
  await tx.done;
  keys.forEach((k) => localStorage.removeItem(k));
}

function open() {
  if (!opened) {
    opened = (async () => {
      try {
        if (typeof indexedDB === "undefined") throw new Error("no IndexedDB");
        const db = await openDB(NAME, 1, { upgrade(d) { STORES.forEach((s) => d.createObjectStore(s)); } });
        await migrate(db);
        return {
          get: (store, key) => db.get(store, key),
          put: (store, key, value) => db.put(store, value, key),
          delete: (store, key) => db.delete(store, key),
          keys: (store) => db.getAllKeys(store),
        };
      } catch (e) {
        return local;
      }
    })();
  }
  return opened;
}

/** The phone's store: get / put / delete / keys, each by store name ("outbox", "tables") and key. */
export const phoneDb = {
  get: async (store, key) => (await open()).get(store, key),
  put: async (store, key, value) => (await open()).put(store, key, value),
  delete: async (store, key) => (await open()).delete(store, key),
  keys: async (store) => (await open()).keys(store),
};
