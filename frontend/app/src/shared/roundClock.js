// The round clock and the announcements as the published feed gives them (issue 28). The clock is published as
// times, never as a count: what is left is worked out here from this phone's own clock every half second, so it
// keeps counting when the network drops and on the static site. The same reading as the hall board's hall.js.
import { onBeforeUnmount, onMounted, ref } from "vue";
import { FAR_MS } from "./format.js";

const FIVE_MINUTES = 5 * 60 * 1000;

function two(n) { return (n < 10 ? "0" : "") + n; }
export function hms(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return (h ? `${h}:${two(m)}` : two(m)) + ":" + two(s % 60);
}

/** {state, left, note, extended} from a published clock at `now` (ms), or null when the round has no times.
 *  state: "before" | "running" | "soon" | "paused" | "up"; note: "seat_now" | "finish_deal" | "ddz_count" | "".
 *  far: more than a day to go, shown as the time `at` (an ISO string) instead of a count (issue 39). */
export function clockView(c, game, now) {
  if (!c || (!c.starts_at && !c.ends_at)) return null;
  const starts = c.starts_at ? Date.parse(c.starts_at) : null, ends = c.ends_at ? Date.parse(c.ends_at) : null;
  const extended = c.extended_minutes || 0;
  if (c.state === "paused" && c.paused_at && ends) return { state: "paused", left: hms(ends - Date.parse(c.paused_at)), note: "", extended };
  if (starts && now < starts) return { state: "before", left: hms(starts - now), note: starts - now <= FIVE_MINUTES ? "seat_now" : "", extended,
                                       far: starts - now >= FAR_MS, at: c.starts_at };
  if (ends && now < ends) return { state: ends - now <= FIVE_MINUTES ? "soon" : "running", left: hms(ends - now), note: "", extended,
                                   far: ends - now >= FAR_MS, at: c.ends_at };
  if (ends) return { state: "up", left: "00:00", note: game === "doudizhu" ? "ddz_count" : "finish_deal", extended };
  return null;
}

/** Polls /t/{tid}/{eid}/feed.json (the published site, same origin) for the clock and the announcements. */
export function useHallFeed(source, { every = 10000 } = {}) {
  const clock = ref(null), announcements = ref([]), now = ref(Date.now()), online = ref(true);
  let poller = 0, ticker = 0;
  async function poll() {
    const { tid, eid } = source() || {};
    if (!tid || !eid) return;
    try {
      const res = await fetch(`/t/${encodeURIComponent(tid)}/${encodeURIComponent(eid)}/feed.json?_=${Date.now()}`, { cache: "no-store" });
      if (!res.ok) return;
      const feed = await res.json();
      clock.value = feed.clock || null;
      announcements.value = feed.announcements || [];
      online.value = true;
    } catch (e) {
      online.value = false;   // offline: the clock keeps counting from what was published
    }
  }
  onMounted(() => {
    poll();
    poller = setInterval(poll, every);
    ticker = setInterval(() => { now.value = Date.now(); }, 500);
  });
  onBeforeUnmount(() => { clearInterval(poller); clearInterval(ticker); });
  return { clock, announcements, now, online, poll };
}
