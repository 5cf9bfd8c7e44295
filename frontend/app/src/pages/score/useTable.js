// The table as this phone sees it: loaded once from the API (which checks the code and says which side this phone
// is), then followed through the table's live JSON (issue 43): a static file the server rewrites on every change to
// the table, served by the CDN (locally the site server), so the other phone's entry, confirmation or dispute and
// the referee's ruling arrive by themselves without a poll reaching the API. This phone's own writes show at once
// from the API's answers (applyAnswer), never waiting on the CDN.
// Every answer is kept on the phone (keptTable.js): with no answer (offline, the store down) the page shows the
// kept one, `keptAt` saying since when, until the network answers again.
import { onBeforeUnmount, ref } from "vue";
import { call, retryLater } from "../../shared/api.js";
import { keepTable, keptTable } from "./keptTable.js";
import { setZone } from "../../shared/format.js";

// The table's first answer, read before the page first draws (main.js waits for it, up to a moment): the first
// screen a player sees is the table, not an empty frame followed by the table one frame or more later. The page's
// early script has usually asked for it already (early-score.js); this takes that answer over.
let first = null;
export function firstTable(wait = 1000) {
  const q = new URLSearchParams(location.search);
  const where = { eid: q.get("e"), n: q.get("r"), t: q.get("t") };
  const code = q.get("c") || localStorage.getItem(`code:${where.eid}:${where.n}:${where.t}`);
  if (!where.eid || !where.n || !where.t || !code) return null;
  let etag = null;
  const asked = call("tableView", { params: where, as: { tableCode: code }, retries: 1, onEtag: (e) => { etag = e; } })
    .then((v) => { first = { code, view: v, etag }; keepTable(where, code, v, etag); }, async (e) => {
      const kept = retryLater(e.status) ? await keptTable(where, code) : null;
      if (kept) first = { code, view: kept.view, etag: kept.etag, keptAt: kept.at };
      /* else the page asks again and shows why */
    });
  return Promise.race([asked, new Promise((r) => setTimeout(r, wait))]);
}

// The live JSON's polling cadence by what the phone waits for (ms); bench/cost.py models the same numbers.
export const CADENCE_MS = { waiting: 4000, playing: 10000, settled: 15000 };

export function useTable(where, code) {
  const ready = first && first.code === code.value ? first : null;
  first = null;
  const view = ref(ready ? ready.view : null);
  if (ready) setZone(ready.view.timezone);
  const keptAt = ref(ready ? ready.keptAt || null : null);   // the shown table is the phone's copy from then
  let etag = ready ? ready.etag : null;
  let timer = null;
  let preloaded = !!ready;

  const opts = () => ({ params: where, as: { tableCode: code.value }, onEtag: (e) => { etag = e; } });
  function fresh(v) {
    setZone(v.timezone);   // the round's and the appeal window's times in the tournament's zone
    view.value = v;
    keptAt.value = null;
    keepTable(where, code.value, v, etag);
  }

  async function load() {
    if (preloaded) { preloaded = false; return view.value; }   // the page's first open: already here
    etag = null;
    try {
      fresh(await call("tableView", opts()));
    } catch (e) {
      const kept = retryLater(e.status) ? await keptTable(where, code.value) : null;
      if (!kept) throw e;
      setZone(kept.view.timezone);
      view.value = kept.view;
      etag = kept.etag;
      keptAt.value = kept.at;
    }
    return view.value;
  }

  // A write's answer (result, confirmation, dispute: ResultOut) carries the table as saved: shown at once. Its
  // sides come without names (the answer is the table's record): this view's names stay.
  function applyAnswer(answer) {
    if (!answer || !answer.table || !view.value) return false;
    const shown = JSON.parse(JSON.stringify(view.value));   // a plain copy: IndexedDB refuses Vue's reactive one
    const names = Object.fromEntries(shown.table.sides.map((s) => [s.entry_id, s.name]));
    const table = { ...shown.table, ...answer.table,
                    sides: answer.table.sides.map((s) => ({ ...s, name: s.name || names[s.entry_id] || "" })) };
    lastLive = null;
    fresh({ ...shown, table });
    return true;
  }

  // The live JSON, revalidated with the CDN every poll (no-cache: the browser asks, the edge answers from its copy).
  // null: not written yet (404 before the table's first change), or no answer (offline): the shown view stays.
  let lastLive = null;
  async function liveView(path) {
    const res = await fetch(path, { cache: "no-cache", credentials: "omit" });
    if (!res.ok) return null;
    const text = await res.text();
    if (text === lastLive) return undefined;      // the same file as last time: nothing moved
    lastLive = text;
    return { ...JSON.parse(text), side: view.value.side, live: view.value.live };
  }

  // How often the live JSON is asked for: the CDN bills every request (bench/cost.py counts them with these
  // numbers), so quickly only while this phone waits on someone — the other side's confirmation or dispute, the
  // referee's word on a dispute or an appeal, a team match's rooms and lineups — less while the table is played
  // (the players sit together: the one who entered says so), rarely once it is settled.
  function cadence(every) {
    const v = view.value;
    if (!v || !v.live) return every;
    const s = v.table.status;
    const appealOpen = (v.appeals || []).some((a) => a.status !== "decided");
    if (appealOpen || v.table.rooms || s === "entered" || s === "disputed") return CADENCE_MS.waiting;
    return s === "pending" ? CADENCE_MS.playing : CADENCE_MS.settled;
  }

  // `busy()` says the phone is in the middle of typing deals: a still-pending table is not re-rendered under it.
  // A view that never loaded (the store down when the page opened) is asked for again on every tick. A server
  // without live files (no `live` in its answer) is polled as before.
  let stopped = false;
  function follow(busy, every = 4000) {
    clearTimeout(timer);
    const tick = async () => {
      try { await poll(busy); } finally { if (!stopped) timer = setTimeout(tick, cadence(every)); }
    };
    timer = setTimeout(tick, cadence(every));
  }
  async function poll(busy) {
    if (document.hidden) return;
    if (!view.value) { if (code.value) { try { await load(); } catch (e) { /* still down */ } } return; }
    try {
      const next = view.value.live ? await liveView(view.value.live) : await call("tableView", { ...opts(), etag, retries: 1 });
      if (next === undefined || (!next && view.value.live)) return;   // unchanged, or not there yet
      if (!next) { keptAt.value = null; return; }    // 304: what is shown is the server's table
      const before = view.value.table;
      if (next.table.version < before.version) return;   // the CDN's copy is older than this phone's own answer
      const moved = next.table.version !== before.version || next.table.status !== before.status;
      if (moved && busy() && next.table.status === "pending") return;
      fresh(next);      // the table moved, or something beside it did (an appeal's ruling)
    } catch (e) { /* offline for a moment: the next tick tries again */ }
  }
  onBeforeUnmount(() => { stopped = true; clearTimeout(timer); });
  return { view, keptAt, load, follow, applyAnswer };
}
