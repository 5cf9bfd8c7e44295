// The set-up form's model ↔ the API's config: times in the tournament's own zone (datetime-local inputs) and
// back, the request bodies, and the warnings shown before saving (a deadline already past, or after the start).

// Minutes the zone is ahead of UTC at that instant.
function offsetMinutes(date, tz) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric",
    month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
    .formatToParts(date).map((p) => [p.type, p.value]));
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour % 24, +parts.minute, +parts.second);
  return Math.round((wall - date.getTime()) / 60000);
}

const HAS_ZONE = /(Z|[+-]\d\d:?\d\d)$/;

// "YYYY-MM-DDTHH:MM" read in `tz` → a Date.
export function localToDate(text, tz) {
  if (!text) return null;
  if (HAS_ZONE.test(text)) return new Date(text);
  const [d, t = "00:00"] = text.split("T");
  const [y, mo, da] = d.split("-").map(Number);
  const [h, mi] = t.split(":").map(Number);
  const guess = Date.UTC(y, mo - 1, da, h, mi);
  return new Date(guess - offsetMinutes(new Date(guess), tz) * 60000);
}

// A stored time (UTC with offset, or local without) → "YYYY-MM-DDTHH:MM" in `tz` for a datetime-local input.
export function toLocalInput(value, tz) {
  if (!value) return null;
  if (!HAS_ZONE.test(value)) return value.slice(0, 16);
  const d = new Date(value);
  return new Date(d.getTime() + offsetMinutes(d, tz) * 60000).toISOString().slice(0, 16);
}

const clone = (x) => JSON.parse(JSON.stringify(x));

// A stored event config → the form's model (times as local inputs).
export function modelFromConfig(config, tz) {
  const m = clone(config);
  m.registration.opens_at = toLocalInput(m.registration.opens_at, tz);
  m.registration.closes_at = toLocalInput(m.registration.closes_at, tz);
  m.fee.refund_until = toLocalInput(m.fee.refund_until, tz);
  for (const s of m.stages) {
    if (!s.schedule) continue;
    s.schedule.first_round_at = toLocalInput(s.schedule.first_round_at, tz);
    for (const r of s.schedule.rounds || []) {
      r.starts_at = toLocalInput(r.starts_at, tz);
      r.ends_at = toLocalInput(r.ends_at, tz);
    }
  }
  return m;
}

// The form's model → the config the API takes (times stay local: the API reads them in the tournament's zone).
export function bodyFromModel(model) {
  const b = clone(model);
  const empty = (v) => (v === "" ? null : v);
  b.name = (b.name || "").trim();
  b.registration.opens_at = empty(b.registration.opens_at);
  b.registration.closes_at = empty(b.registration.closes_at);
  b.fee.refund_until = empty(b.fee.refund_until);
  for (const s of b.stages) {
    if (s.advance && s.advance.per_group === null && s.advance.total === null && b.stages.indexOf(s) === 0) s.advance = null;
    if (s.schedule && !s.schedule.rounds) s.schedule.rounds = null;
  }
  return b;
}

export const PATCH_FIELDS = ["name", "game", "entry", "capacity", "waitlist", "fee", "registration", "stages", "prizes",
  "prize_shrink", "allow_partner_wanted", "lateness", "appeals", "correction_minutes", "forfeit_ranks_last", "mixed_pairs",
  "mixed_team", "force_majeure_opponent", "late_entries", "result_entry", "late_entry", "substitutes"];

// When the event starts: its first scheduled round, else the tournament's first day.
export function eventStart(model, tournament) {
  const s = model.stages[0] && model.stages[0].schedule;
  const first = s && (s.first_round_at || (s.rounds && s.rounds[0] && s.rounds[0].starts_at));
  return first || `${tournament.starts_on}T00:00`;
}

// What to warn about before saving: [{ key, params }] for the catalog (console.warn_*).
export function warnings(model, tournament, now = new Date()) {
  const tz = tournament.timezone || "Asia/Shanghai";
  const out = [];
  const closes = localToDate(model.registration.closes_at, tz);
  const startText = eventStart(model, tournament);
  const start = localToDate(startText, tz);
  if (closes && closes < now) out.push({ key: "warn_deadline_past", params: { at: model.registration.closes_at.replace("T", " ") } });
  if (closes && start && closes > start) {
    out.push({ key: "warn_deadline_after_start", params: { at: model.registration.closes_at.replace("T", " "), start: startText.replace("T", " ") } });
  }
  model.stages.forEach((s, i) => {
    const first = s.schedule && (s.schedule.first_round_at || (s.schedule.rounds && s.schedule.rounds[0] && s.schedule.rounds[0].starts_at));
    if (!first) return;
    const day = first.slice(0, 10);
    if (day < tournament.starts_on || day > (tournament.ends_on || tournament.starts_on)) {
      out.push({ key: "warn_stage_outside_days", params: { n: i + 1, day } });
    }
  });
  if (model.prize_shrink && model.prize_shrink.below_entries > model.capacity) {
    out.push({ key: "warn_shrink_always", params: { below: model.prize_shrink.below_entries, capacity: model.capacity } });
  }
  return out;
}
