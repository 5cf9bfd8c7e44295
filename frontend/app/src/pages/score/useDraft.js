// Every deal is kept on the phone as it is typed, per table and round, and restored on a reload (a locked phone,
// a WeChat reload) until the table's result is confirmed. Sending does not clear it: if the server refuses the
// result, the typed deals are still here for the referee.
import { ref, watch } from "vue";

export function useDraft(where) {
  const key = `draft:${where.eid}:${where.n}:${where.t}`;
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { saved = null; }
  const deals = ref((saved && Array.isArray(saved.deals) && saved.deals) || []);
  const timeUpLeader = ref((saved && saved.time_up_leader) || null);
  const restored = deals.value.length > 0;

  function save() {
    try {
      if (!deals.value.length && !timeUpLeader.value) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify({ deals: deals.value, time_up_leader: timeUpLeader.value, at: Date.now() }));
    } catch (e) { /* storage full or blocked: the deals stay on screen */ }
  }
  watch([deals, timeUpLeader], save, { deep: true });

  /** The result is confirmed (or settled): nothing is left to keep. */
  function clear() {
    deals.value = [];
    timeUpLeader.value = null;
    localStorage.removeItem(key);
  }
  return { deals, timeUpLeader, restored, clear };
}
