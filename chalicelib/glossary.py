"""Every code the engine and the API use, in 中文 and English: one source for the console and table pages
(served as GET /glossary) and for the published pages. Pairing reasons come from the engine as structured `why`
and are worded here from publish/catalog.toml's words; the engine's own strings are never shown."""
from __future__ import annotations

TERMS: dict[str, dict[str, tuple[str, str]]] = {
    "format": {"swiss": ("积分编排（瑞士制）", "Swiss"), "round_robin": ("循环赛", "Round robin"),
               "knockout": ("淘汰赛", "Knockout"), "special_swiss": ("特别积分编排", "Special Swiss")},
    "method": {"level_points": ("级数分", "Level points"), "match_points": ("场分 + 级差分", "Match points"),
               "table_points": ("场分（5/3/1）+ 小分", "Table points"), "position_points": ("名次分", "Position points"),
               "level_table": ("升级（三局两胜）", "Levels, best of three")},
    "point": {"level_points": ("级数分", "Level points"), "match_points": ("场分", "Match points"),
              "level_diff_points": ("级差分", "Level difference"), "table_points": ("场分", "Table points"),
              "small_points": ("小分", "Small points"), "landlord_deals": ("做庄次数", "Landlord deals"),
              "position_points": ("名次分", "Position points"), "games_won": ("胜局", "Games won"),
              "group_points": ("小组积分", "Group points"), "head_to_head": ("胜负关系", "Head-to-head"),
              "head_to_head_two": ("胜负关系", "Head-to-head"), "net_points": ("净胜分", "Net points"),
              "opponents_match_points": ("对手场分", "Opponents' match points"),
              "opponents_points": ("对手积分", "Opponents' points"), "lots": ("抽签", "Lots"),
              "knockout_round": ("淘汰轮次", "Knockout round"), "third_place": ("三四名决赛", "Third-place match")},
    "table_status": {"pending": ("未录入", "Not entered"), "entered": ("待确认", "Awaiting confirmation"),
                     "disputed": ("有异议", "Disputed"), "confirmed": ("已确认", "Confirmed"),
                     "forfeit": ("弃权", "Forfeit")},
    "entry_status": {"confirmed": ("已确认", "Confirmed"), "pending_payment": ("待付款", "Payment pending"),
                     "waitlisted": ("候补中", "Waitlisted"), "partner_wanted": ("等待组队", "Looking for a partner"),
                     "cancelled": ("已取消", "Cancelled"), "withdrawn": ("已退赛", "Withdrawn"),
                     "merged": ("已组队", "Partnered"), "disqualified": ("取消比赛资格", "Disqualified")},
    "game": {"guandan": ("掼蛋", "Guandan"), "doudizhu": ("斗地主", "Dou Dizhu"), "gouji": ("够级", "Gouji"),
             "tractor": ("拖拉机", "Tractor")},
    "option": {"rounds": ("轮数", "Rounds"), "deals_per_round": ("每轮副数", "Deals a round"),
               "minutes": ("每轮时长（分钟）", "Minutes a round"), "pass_a_points": ("过A得分（本赛事设定）", "Points for passing A (this event's setting)"),
               "bye_level_points": ("轮空级数分", "Bye: level points"), "best_of": ("局数（几局几胜）", "Best of"),
               "games_per_match": ("每场局数", "Games a match"), "bye_table_points": ("轮空场分", "Bye: table points"),
               "start_level": ("起始级", "Start level"), "separate_related": ("同单位首轮回避", "Keep clubs apart in round 1"),
               "early_finish": ("提前夺冠不再编排", "Early finish"), "rematches": ("重复对阵", "Rematches"),
               "bye_match_points": ("轮空场分", "Bye: match points"), "bye_level_diff_points": ("轮空级差分", "Bye: level difference"),
               "withdrawal_points": ("退赛时对手得分", "Points when a team withdraws"),
               "withdrawal_points_formats": ("退赛计32分适用的赛制", "Formats where a withdrawal gives opponents the points"),
               "forfeit_ranks_last": ("无故弃权者名次降为本阶段最后", "Unexcused forfeit ranks last of the stage"),
               "knockout_draw": ("淘汰赛对阵方式", "Knockout draw"),
               "slow_play_levels": ("拖延比赛：每副非义务方升级数", "Slow play: levels the other side rises a deal"),
               "deduction_points": ("违规扣分（级差分）", "Deduction (level-difference points)"),
               "wrong_play_points_per_card": ("出牌错误：每张罚分", "Wrong play: points a card"),
               "penalty_levels": ("违规：对方连升级数", "Penalty: levels the other pair rises")},
    # a knockout round by its size (domain/round.knockout_round_name)
    "knockout_round": {"final": ("决赛", "Final"), "semi_final": ("半决赛", "Semi-final"),
                       "quarter_final": ("1/4决赛", "Quarter-final"), "round_of_16": ("1/8决赛", "Round of 16"),
                       "round_of_32": ("1/16决赛", "Round of 32"), "round_of_64": ("1/32决赛", "Round of 64"),
                       "third_place": ("三四名决赛", "Third-place match")},
    # how far an entry went in a knockout stage (services/standings.knockout_results)
    "knockout_reached": {"champion": ("冠军", "Champion"), "runner_up": ("亚军", "Runner-up"),
                         "third": ("第三名（三四名决赛胜）", "3rd (won the third-place match)"),
                         "fourth": ("第四名（三四名决赛负）", "4th (lost the third-place match)"),
                         "out_semi_final": ("止步半决赛", "Out in the semi-finals"),
                         "out_quarter_final": ("止步1/4决赛", "Out in the quarter-finals"),
                         "out_round_of_16": ("止步1/8决赛", "Out in the round of 16"),
                         "out_round_of_32": ("止步1/16决赛", "Out in the round of 32"),
                         "out_round_of_64": ("止步1/32决赛", "Out in the round of 64"),
                         "out_groups": ("小组赛出局", "Out in the group stage"),
                         "out_stage": ("前一阶段出局", "Out in an earlier stage"),
                         "disqualified": ("取消比赛资格（不排名次）", "Disqualified (not ranked)")},
    "knockout_draw": {"bracket": ("固定签表（按种子）", "Fixed seeded bracket"),
                      "redraw": ("晋级后重新抽签", "Redrawn among the winners each round"),
                      "choice": ("名次靠前者依次选择对手", "Better-placed entries choose their opponents in order")},
    # rules.md §8: penalties are records with a kind, the offender, the deal (or game) and the referee; the engine
    # scores them. Guandan: double_down, slow_play, level_diff_point; Tractor: wrong_play, late_discovery,
    # card_count; Gouji: cheating.
    "penalty": {"double_down": ("判负，按双下记分", "Deal lost, scored as a double-down (the other pair +3)"),
                "slow_play": ("拖延比赛：非义务方升级", "Slow play: the other side rises"),
                "level_diff_point": ("从总分扣除1个级差分", "One level-difference point off the total"),
                "wrong_play": ("出牌错误：按拿回张数乘以10分罚分", "Wrong play: cards taken back × 10 points"),
                "late_discovery": ("过后发现：输掉当级牌，对抗方连升3级", "Found later: the deal lost, the other pair +3"),
                "card_count": ("最后一手多牌少牌：非出错方连升3级", "Wrong card count: the other pair +3"),
                "cheating": ("作弊：本局判负", "Cheating: the game lost")},
    # Defaults where a seed is silent (rules.md §8): named here and in the event config; configurable.
    "default": {"gouji_cheating": ("作弊方本局判负：对方三人计头科至三科（16分），作弊方计四科至六科（6分）",
                                   "Cheating loses the game: the other team takes 1st–3rd (16), the offenders 4th–6th (6)"),
                "tractor_banker_wrong_play": ("庄家出牌错误：拿回张数乘以10分计入抓分方",
                                              "A banker's wrong play: cards × 10 go to the attackers' points"),
                "level_points_deduction": ("级数分赛制无级差分：违规扣分从级数分扣除",
                                           "Level-points scoring has no 级差分: the deduction comes off level points"),
                "slow_play_match_points": ("比赛分制（场分）双人赛：非义务方每副升二级",
                                           "Match-points pairs: the other side rises two levels a deal"),
                "pass_a_points": ("过A得分：本赛事设定（默认15，可改）；003规程未规定（打到A计14）",
                                  "Points for passing A: this event's setting (default 15); seed 003 gives none (A scores 14)"),
                "doudizhu_small_points": ("小分：叫分 × 2^(炸弹+火箭+春天)，本赛事计分方法；001规程未给出公式",
                                          "Small points: bid × 2^(bombs + rockets + spring), the event's method; seed 001 gives no formula"),
                "team_level_diff": ("集体赛级差分：两室合计级差按26分制计一次（平局13:13，轮空17）",
                                    "Team match 级差分: the 26-point scale once over both rooms' combined difference (draw 13:13, bye 17)"),
                "force_majeure_opponent": ("不可抗力：缺赛方按平局，对手按对方弃权计分",
                                           "Force majeure: the absent side a draw, its opponent as against a forfeit"),
                "early_finish_carry_over": ("下阶段带分时不提前结束", "No early finish before a stage that carries points over"),
                "early_finish_average": ("提前结束者按已赛场次（不含轮空）平均得分，四舍五入保留2位小数",
                                         "An early finisher scores its average over matches played (no bye), half-up to 2 decimals")},
}


def term(kind: str, code: str, lang: str = "zh") -> str:
    pair = TERMS.get(kind, {}).get(code)
    if lang == "vi" and code in VI.get(kind, {}):
        return VI[kind][code]
    return (pair[0] if lang == "zh" else pair[1]) if pair else code


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)


def reason_text(why: dict | None, lang: str, names: dict[str, str] | None = None) -> str:
    """A pairing's reason in words, from the engine's structured `why` (the words: publish/catalog.toml)."""
    if not why:
        return ""
    from .publish.i18n import translator
    t = translator(lang)
    names = names or {}
    kind = why.get("kind")
    if kind == "same_score":
        text = t("why_same_score", score=_num(why["score"]))
    elif kind == "float":
        text = t("why_float", high=_num(why["high"]), low=_num(why["low"]))
    elif kind == "rematch":
        text = t("why_rematch")
    elif kind == "table_of_three":
        rep = why.get("repeats", 0)
        text = (t("why_scores", scores="/".join(_num(s) for s in why.get("scores", [])))
                + (t("why_repeats", n=rep) if rep else t("why_no_repeats")))
        if "same_club" in why:   # round 1: clubs kept apart (Dou Dizhu)
            club = why["same_club"]
            text = (t("why_scores", scores="/".join(_num(s) for s in why.get("scores", [])))
                    + (t("why_same_club", n=club) if club else t("why_clubs_apart")))
    elif kind == "berger":
        text = (t("why_group", n=why["group"]) if why.get("group") else "") + t("why_berger", n=why["round"])
    elif kind == "knockout":
        a, b = why.get("seeds", ["?", "?"])
        bracket = why.get("bracket", "")
        prefix = t("bracket_" + bracket) + " · " if bracket in ("upper", "lower", "grand") else ""
        if why.get("third_place"):   # the semi-finals' losers, beside the final
            text = t("why_ko_third", a=a, b=b)
        elif why.get("redrawn"):   # seed 003: "晋级后重新抽签比赛"
            text = prefix + t("why_ko_redrawn")
        elif why.get("chosen"):   # seed 000: "优先选择淘汰赛对手"
            text = prefix + t("why_ko_chosen", a=a, b=b)
        else:
            text = prefix + t("why_ko", a=a, b=b)
    elif kind == "edited":   # the chief referee's pairing edit (编排调整), with its reason
        text = t("why_edited", reason=why.get("reason", ""))
    else:
        text = ""
    if why.get("avoids"):
        who = names.get(why["avoids"][1], "")
        text += t("why_avoids_who", who=who) if who else t("why_avoids")
    if why.get("related"):
        text += t("why_related")
    if why.get("zone"):
        zone = t("zone_" + why["zone"]) if why["zone"] in ("winners", "losers") else why["zone"]
        text = t("why_in_zone", zone=zone, text=text)
    return text


_BYE_RULES = ("lowest_without_bye", "lowest_leaving_good_pairing", "second_bye", "alone_in_zone", "knockout", "schedule",
              "edited")


def bye_text(why: dict | None, lang: str) -> str:
    from .publish.i18n import translator
    rule = (why or {}).get("rule", "lowest_without_bye")
    return translator(lang)("bye_rule_" + (rule if rule in _BYE_RULES else "other"))


def points_text(points: dict, names: list[str], lang: str) -> str:
    """'场分 2 · 级差分 17', never '2 / 17'."""
    return " · ".join(f"{term('point', n, lang)} {_num(points.get(n, 0))}" for n in names if n in points)


# Vietnamese (seed 004 is played in Vietnam) for what the participant, table-side and public pages show.
VI: dict[str, dict[str, str]] = {
    "format": {"swiss": "Hệ Thụy Sĩ", "round_robin": "Vòng tròn", "knockout": "Loại trực tiếp",
               "special_swiss": "Hệ Thụy Sĩ đặc biệt"},
    "point": {"level_points": "Điểm cấp", "match_points": "Điểm trận", "level_diff_points": "Điểm chênh lệch cấp",
              "table_points": "Điểm bàn", "small_points": "Điểm phụ", "landlord_deals": "Số ván làm địa chủ",
              "position_points": "Điểm thứ hạng", "games_won": "Số ván thắng", "group_points": "Điểm bảng",
              "head_to_head": "Đối đầu", "head_to_head_two": "Đối đầu", "net_points": "Hiệu số điểm",
              "opponents_match_points": "Điểm trận của đối thủ", "opponents_points": "Điểm của đối thủ",
              "lots": "Bốc thăm", "knockout_round": "Vòng loại trực tiếp", "third_place": "Tranh hạng ba"},
    "table_status": {"pending": "Chưa nhập", "entered": "Chờ xác nhận", "disputed": "Có khiếu nại",
                     "confirmed": "Đã xác nhận", "forfeit": "Bỏ cuộc"},
    "entry_status": {"confirmed": "Đã xác nhận", "pending_payment": "Chờ thanh toán", "waitlisted": "Trong danh sách chờ",
                     "partner_wanted": "Đang tìm đồng đội", "cancelled": "Đã hủy", "withdrawn": "Đã rút lui",
                     "merged": "Đã ghép đội"},
    "game": {"guandan": "Quán Đản", "doudizhu": "Đấu Địa Chủ", "gouji": "Câu Cấp", "tractor": "Thăng Cấp"},
    "knockout_round": {"final": "Chung kết", "semi_final": "Bán kết", "quarter_final": "Tứ kết", "round_of_16": "Vòng 1/8",
                       "round_of_32": "Vòng 1/16", "round_of_64": "Vòng 1/32", "third_place": "Tranh hạng ba"},
    "knockout_reached": {"champion": "Vô địch", "runner_up": "Á quân", "third": "Hạng ba (thắng trận tranh hạng ba)",
                         "fourth": "Hạng tư (thua trận tranh hạng ba)", "out_semi_final": "Dừng ở bán kết",
                         "out_quarter_final": "Dừng ở tứ kết", "out_round_of_16": "Dừng ở vòng 1/8",
                         "out_round_of_32": "Dừng ở vòng 1/16", "out_round_of_64": "Dừng ở vòng 1/32",
                         "out_groups": "Bị loại ở vòng bảng", "out_stage": "Bị loại ở giai đoạn trước",
                         "disqualified": "Bị truất quyền thi đấu (không xếp hạng)"},
}


def as_json() -> dict:
    out = {kind: {code: {"zh": zh, "en": en} for code, (zh, en) in codes.items()} for kind, codes in TERMS.items()}
    for kind, codes in VI.items():
        for code, vi in codes.items():
            out[kind][code]["vi"] = vi
    return out


# Who acted, as pages and the audit name them: a role's name, never an account id
ROLE_NAMES = {"director": ("裁判长", "director"), "desk": ("报到台", "desk"), "scorer": ("记分员", "scorer"),
              "owner": ("组委会", "organiser")}


def display_who(who: str) -> str:
    """'staff:<id>:王裁判:scorer' → '王裁判（记分员）'; the organiser → '组委会'. No ids on pages."""
    if who.startswith("staff:"):
        parts = who.split(":", 3)
        if len(parts) == 4:
            return f"{parts[2]}（{ROLE_NAMES.get(parts[3], (parts[3],))[0]}）"
    if who.startswith("organiser:"):
        return ROLE_NAMES["owner"][0]
    return ""
