// A template per seed (../shared/seeds, rules.md): the tournament and every event of its day, with the seed's own
// numbers. Dates follow the day the organiser picks; times are the tournament's local time. Where a seed is
// silent, the template keeps the rules' default (defaults.js) and the form shows it as such.
import { eventDefaults, stageDefaults } from "./defaults.js";

// "YYYY-MM-DD" ± days, as a date string (no time zone involved: calendar arithmetic only).
export function addDays(day, n) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

function merge(base, over) {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = v && typeof v === "object" && !Array.isArray(v) && base[k] && typeof base[k] === "object" && !Array.isArray(base[k])
      ? merge(base[k], v) : v;
  }
  return out;
}
function event(game, over) {
  return merge(eventDefaults(game), over);
}
function stage(game, format, over, ctx = {}) {
  return merge(stageDefaults(game, format, ctx), over);
}

// seed 003 "若单项报名人数不足20组，则奖项名额调整为一、二、三等奖各1名"
const SHRINK_003 = { below_entries: 20, prizes: [
  { place_from: 1, place_to: 1, amount: 0, label: "一等奖" },
  { place_from: 2, place_to: 2, amount: 0, label: "二等奖" },
  { place_from: 3, place_to: 3, amount: 0, label: "三等奖" }] };
// seed 003's own prize table is lost in the copy (only its note survives): one 1st, two 2nd, three 3rd to start from
const PRIZES_003 = [
  { place_from: 1, place_to: 1, amount: 0, label: "一等奖" },
  { place_from: 2, place_to: 3, amount: 0, label: "二等奖" },
  { place_from: 4, place_to: 6, amount: 0, label: "三等奖" }];

export const TEMPLATES = {
  // seed 001: 二打一个人赛, 15 places, five rounds of 6 deals / 40 minutes, 5/3/1, bomb bonuses, prizes to 8th
  "001": {
    label: "北京杯斗地主 (001)",
    tournament: (day) => ({ name: "北京杯牌友二打一比赛", venue: "北京市朝阳区工人体育场西路8号Coco酒吧三楼",
                            starts_on: day, ends_on: day }),
    events: (day) => [event("doudizhu", {
      name: "二打一个人赛", capacity: 15,
      registration: { closes_at: `${addDays(day, -1)}T18:00` },
      stages: [stage("doudizhu", "swiss", { name: "积分循环赛", rounds: 5,
                                             schedule: { first_round_at: `${day}T14:00`, round_minutes: 40, break_minutes: 10, rounds: null } })],
      prizes: [{ place_from: 1, place_to: 1, amount: 5000, label: "第一名" }, { place_from: 2, place_to: 2, amount: 3000, label: "第二名" },
               { place_from: 3, place_to: 3, amount: 2000, label: "第三名" }, { place_from: 4, place_to: 8, amount: 1000, label: "第四至八名" }],
    })],
  },
  // seed 002: teams of 3, knockout (初赛, day one) then round robin (复赛循环, day two), places by total points
  "002": {
    label: "够级团体赛 (002)",
    tournament: (day) => ({ name: "东营万达广场杯够级大赛", venue: "东营万达广场售楼处", starts_on: day, ends_on: addDays(day, 1) }),
    events: (day) => {
      const entry = { kind: "team", size: 3 };
      return [event("gouji", {
        name: "够级团体赛", capacity: 64,
        registration: { closes_at: `${addDays(day, -1)}T18:00` },
        stages: [
          stage("gouji", "knockout", { name: "初赛淘汰",
                                       schedule: { first_round_at: `${day}T09:00`, round_minutes: 50, break_minutes: 10, rounds: null } }, { entry }),
          stage("gouji", "round_robin", { name: "复赛循环", advance: { per_group: null, total: 8 },
                                          schedule: { first_round_at: `${addDays(day, 1)}T08:30`, round_minutes: 50, break_minutes: 10, rounds: null } },
                { index: 1, entry })],
        prizes: [{ place_from: 1, place_to: 1, amount: 0, label: "一等奖" }, { place_from: 2, place_to: 2, amount: 0, label: "二等奖" },
                 { place_from: 3, place_to: 3, amount: 0, label: "三等奖" }, { place_from: 4, place_to: 9, amount: 0, label: "四至九等奖" },
                 { place_from: 10, place_to: 12, amount: 0, label: "十至十二等奖" }],
      })];
    },
  },
  // seed 003: one chamber day, Tractor (groups then knockout, redrawn, best of 3 in 1.5 h) and Guandan pairs Swiss
  // (three rounds 14:00–16:50), 20 CNY a person, members of the four chambers only, deadline the day before 15:00
  "003": {
    label: "恒全杯拖拉机 + 掼蛋 (003)",
    tournament: (day) => ({ name: "第一届恒全杯拖拉机和掼蛋比赛", venue: "南宁市西乡塘区鲁班路46号人工智能人才培训中心",
                            starts_on: day, ends_on: day }),
    events: (day) => {
      const common = {
        fee: { amount: 2000, per: "person" },
        registration: { closes_at: `${addDays(day, -1)}T15:00`,
                        eligibility: { kind: "codes", codes: ["HECHI", "YIZHOU", "DONGLAN", "DAHUA"] } },
        prizes: PRIZES_003, prize_shrink: SHRINK_003,
        // "如有特殊情况需提前向组委会申请，经同意后方可更换": the director's approval at the desk is that consent,
        // so a substitute and a walk-in on the day are allowed (each still by the director or the desk)
        late_entries: true, substitutes: { pairs: true },
      };
      const level = { method: "level_table", best_of: 3, minutes: 90 };
      return [
        event("tractor", { ...common, name: "拖拉机比赛", capacity: 32,
          stages: [
            // "09:30-11:00 淘汰赛": the group stage is one 90-minute slot, as the seed writes it (not a round every
            // 100 minutes, which ran into the knockout's 11:10)
            stage("tractor", "round_robin", { name: "小组赛", groups: 4, scoring: level,
                                              schedule: { first_round_at: null, round_minutes: 50, break_minutes: 10,
                                                          rounds: [{ starts_at: `${day}T09:30`, ends_at: `${day}T11:00` }] } }),
            // 003 plays knockout "直至决赛" and its day has no slot for a 3rd-place match (复赛, 半决赛, 决赛): the
            // template leaves third_place off, so its 3rd prize goes to the semi-finals' losers by the tie-breaks
            stage("tractor", "knockout", { name: "淘汰赛", advance: { per_group: 2, total: null }, scoring: level, third_place: false,
                                           schedule: { first_round_at: null, round_minutes: 50, break_minutes: 10, rounds: [
                                             { starts_at: `${day}T11:10`, ends_at: `${day}T12:40` },
                                             { starts_at: `${day}T14:00`, ends_at: `${day}T15:30` },
                                             { starts_at: `${day}T15:40`, ends_at: `${day}T17:10` }] } }, { index: 1 })] }),
        event("guandan", { ...common, name: "掼蛋比赛", capacity: 40,
          // 003 "最终按三轮积分累计决出名次": every pair plays all three rounds — early finish (seed 000's rule, on by
          // default for Guandan Swiss) is off for this template
          stages: [stage("guandan", "swiss", { name: "积分赛", rounds: 3, scoring: { minutes: 60 }, early_finish: false,
                                               schedule: { first_round_at: `${day}T14:00`, round_minutes: 50, break_minutes: 10, rounds: null } })] }),
      ];
    },
  },
};
