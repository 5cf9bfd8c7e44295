// A team match (集体赛) as one team's phone sees it: whose lineup is in, each room's state, and the calls that
// post a lineup, enter a room, confirm the other team's room or enter the extra deal's winner.
import { computed } from "vue";
import { call } from "../../shared/api.js";
import { timeSpan } from "../../shared/format.js";
import { LANGS, langOf } from "../../shared/i18n.js";

export const ROOMS = ["open", "closed"];

export function useTeamMatch(view, where, code) {
  const table = computed(() => view.value.table);
  const ids = computed(() => table.value.sides.map((s) => s.entry_id));
  const me = computed(() => (view.value.side === null || view.value.side === undefined ? null : ids.value[view.value.side]));
  const them = computed(() => ids.value.find((e) => e !== me.value) || null);
  const names = computed(() => Object.fromEntries(table.value.sides.map((s) => [s.entry_id, s.name])));
  const members = computed(() => view.value.members || {});
  const lineups = computed(() => table.value.lineups || {});
  const status = (room) => (table.value.room_status || {})[room] || null;
  const seatsOf = (room, entry) => {
    const r = (table.value.rooms || []).find((x) => x.room === room);
    return r ? r.seats[entry] || [] : [];
  };
  const as = () => ({ tableCode: code.value });
  const postLineup = (body) => call("postLineup", { params: where, as: as(), body });
  const enterRoom = (room, body) => call("putResult", { params: where, query: { room }, as: as(),
                                                       body: { version: table.value.version, ...body } });
  const confirmRoom = (room) => call("confirmResult", { params: where, query: { room }, as: as() });
  const disputeRoom = (room, reason) => call("disputeResult", { params: where, query: { room }, as: as(), body: { reason } });
  return { table, ids, me, them, names, members, lineups, status, seatsOf, postLineup, enterRoom, confirmRoom, disputeRoom };
}

// "10:45" in the tournament's zone (named when the phone's own differs), the page's language
export const hhmm = (iso) => timeSpan(iso, null, LANGS[langOf(document.documentElement.lang)].locale);
