// What the API fills in when a field is left out (chalicelib/models/events.py, from rules.md): the set-up form
// starts from these and marks every value that still equals them as the default. tests/unit/test_setup_defaults.py
// runs this file under Node and compares it with the Python models, so the two cannot drift apart.

export const GAMES = ["guandan", "doudizhu", "gouji", "tractor"];

export const ENTRY_KINDS = {
  guandan: [{ kind: "pair", size: 2 }, { kind: "team", size: 4 }, { kind: "team", size: 5 }, { kind: "team", size: 6 }],
  tractor: [{ kind: "pair", size: 2 }],
  doudizhu: [{ kind: "individual", size: 1 }],
  gouji: [{ kind: "team", size: 3 }],
};

export const FORMATS = {
  guandan: ["swiss", "round_robin", "knockout", "special_swiss"],
  tractor: ["swiss", "round_robin", "knockout", "special_swiss"],
  gouji: ["swiss", "round_robin", "knockout", "special_swiss"],
  doudizhu: ["swiss"],
};

export const METHODS = {
  guandan: ["level_points", "match_points"],
  doudizhu: ["table_points"],
  gouji: ["position_points"],
  tractor: ["level_table"],
};

const diffTable = () => Array.from({ length: 14 }, (_, d) => Math.min(26, 13 + d));

export function scoringDefaults(method) {
  return {
    level_points: () => ({ method, pass_a_points: 15, bye_level_points: 10, a_failure_limit: null, deals_per_round: null,
                           minutes: 60, slow_play_levels: 1, deduction_points: 1,
                           tiebreaks: ["level_points", "head_to_head", "net_points", "lots"] }),
    match_points: () => ({ method, win: 2, draw: 1, loss: 0, bye_match_points: 1.5, bye_level_diff_points: 17,
                           withdrawal_match_points: 2, withdrawal_level_diff_points: 17, level_diff_table: diffTable(),
                           a_failure_limit: null, minutes: 60, slow_play_levels: 2, deduction_points: 1, team_rooms: false,
                           team_knockout_tie: "extra_deal", team_level_diff: "combined",
                           tiebreaks: ["match_points", "level_diff_points", "head_to_head_two", "opponents_match_points", "lots"] }),
    table_points: () => ({ method, deals_per_round: 6, minutes: 40, places: [5, 3, 1], bye_table_points: 3, doubling: false,
                           max_doublings_per_deal: 8,
                           bomb_bonus: { enabled: true, each: { 3: 50, 4: 100, 5: 200, 6: 500 }, extra: 100 },
                           tiebreaks: ["table_points", "small_points", "landlord_deals", "lots"] }),
    position_points: () => ({ method, games_per_match: 1, position_values: [7, 5, 4, 3, 2, 1], withdrawal_points: 32,
                              withdrawal_points_formats: ["round_robin"], extra_games_before_lots: 3, win: 2, draw: 1, loss: 0,
                              tiebreaks: ["position_points", "match_points", "head_to_head", "lots"] }),
    level_table: () => ({ method, start_level: 3, best_of: 3, minutes: 90, wrong_play_points_per_card: 10, penalty_levels: 3,
                          tiebreaks: ["group_points", "games_won", "head_to_head", "lots"] }),
  }[method]();
}

export function lateness(game) {
  return {
    guandan: { forfeit_after_minutes: 10, forfeit_at_limit: null, from_round: 1, start_level: [{ after_minutes: 0, level: 3 }, { after_minutes: 5, level: 4 }] },
    doudizhu: { forfeit_after_minutes: 5, forfeit_at_limit: null, from_round: 2, start_level: [] },
    tractor: { forfeit_after_minutes: 15, forfeit_at_limit: null, from_round: 1, start_level: [] },
    gouji: { forfeit_after_minutes: null, forfeit_at_limit: null, from_round: 1, start_level: [] },
  }[game];
}

export function appeals(game) {
  return game === "doudizhu" ? { window_minutes: 5, fee: 20000, refund_if_upheld: true }
    : { window_minutes: 30, fee: 0, refund_if_upheld: true };
}

export function defaultMethod(game, entry) {
  return game === "guandan" && entry && entry.kind === "team" ? "match_points" : METHODS[game][0];
}

// A stage as the API completes it. `next` is the stage after it (its carry-over decides Guandan's early finish).
export function stageDefaults(game, format, { index = 0, next = null, entry = null } = {}) {
  const s = { name: "", schedule: null, format, rounds: format === "swiss" ? 3 : null, groups: null, double: false,
              double_elimination: false, best_of: 1, advance: index > 0 ? { per_group: null, total: null } : null,
              carry_over: "none", separate_related: true, rematches: "fewest",
              early_finish: game === "guandan" && format === "swiss" && !(next && next.carry_over !== "none"),
              knockout_draw: format === "knockout" ? (game === "tractor" ? "redraw" : "bracket") : null,
              third_place: false,
              scoring: scoringDefaults(defaultMethod(game, entry)) };
  if (game === "guandan" && entry && entry.kind === "team") s.scoring.team_rooms = true;
  return s;
}

export const SCHEDULE = { first_round_at: null, round_minutes: 50, break_minutes: 10, rounds: null };

// A whole event with every default, for a game (the set-up form's starting point).
export function eventDefaults(game) {
  const entry = { ...ENTRY_KINDS[game][0] };
  return {
    name: "", game, entry, capacity: 40, waitlist: true,
    fee: { amount: 0, per: "person", refund_until: null, offline_hold_hours: 48 },
    registration: { opens_at: null, closes_at: null, eligibility: { kind: "open", codes: [] } },
    stages: [stageDefaults(game, FORMATS[game][0], { entry })],
    prizes: [], prize_shrink: null, allow_partner_wanted: true,
    lateness: lateness(game), appeals: appeals(game), correction_minutes: 30, mixed_pairs: false, mixed_team: false,
    late_entries: false, forfeit_ranks_last: game === "guandan", result_entry: "north_south",
    force_majeure_opponent: "forfeit_win",
    late_entry: { until_round: null, score: 0 }, substitutes: { pairs: false },
    seeding: "random", seeding_ranking: null,   // round 1: the draw, the entry numbers, or a ranking's ratings (issue 42)
  };
}

// The numbers each scoring method lets the organiser set (lists and tie-breaks are shown, not typed).
export const SCORING_FIELDS = {
  level_points: ["pass_a_points", "bye_level_points", "a_failure_limit", "deals_per_round", "minutes", "slow_play_levels", "deduction_points"],
  match_points: ["win", "draw", "loss", "bye_match_points", "bye_level_diff_points", "withdrawal_match_points",
                 "withdrawal_level_diff_points", "a_failure_limit", "minutes", "slow_play_levels", "deduction_points"],
  table_points: ["deals_per_round", "minutes", "bye_table_points", "max_doublings_per_deal"],
  position_points: ["games_per_match", "withdrawal_points", "extra_games_before_lots", "win", "draw", "loss"],
  level_table: ["start_level", "best_of", "minutes", "wrong_play_points_per_card", "penalty_levels"],
};
// Fields that may be empty (no limit).
export const NULLABLE = new Set(["a_failure_limit", "deals_per_round", "forfeit_after_minutes"]);
