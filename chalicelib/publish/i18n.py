"""Every string of the published pages, in zh-CN and English."""
from __future__ import annotations

STRINGS = {
    "site": ("牌类赛事", "Card-game tournaments"),
    "events": ("比赛项目", "Events"),
    "entries_n": ("个参赛单位", "entries"),
    "draw": ("对阵", "Draw"),
    "results": ("成绩", "Results"),
    "standings": ("排名", "Standings"),
    "round": ("第{n}轮", "Round {n}"),
    "rounds": ("轮次", "Rounds"),
    "table": ("桌", "Table"),
    "bye": ("轮空", "Bye"),
    "rank": ("名次", "Rank"),
    "name": ("参赛者", "Entry"),
    "club": ("单位", "Club"),
    "points": ("积分", "Points"),
    "tiebreaks": ("同分比较", "Tie-breaks"),
    "status_pending": ("未录入", "not entered"),
    "status_entered": ("待确认", "awaiting confirmation"),
    "status_confirmed": ("已确认", "confirmed"),
    "status_forfeit": ("弃权", "forfeit"),
    "open": ("进行中", "in progress"),
    "closed": ("已结束", "finished"),
    "history": ("历次对局", "Match history"),
    "corrections": ("成绩更正记录", "Corrections"),
    "no_corrections": ("暂无更正", "No corrections"),
    "bonuses": ("炸弹奖", "Bomb bonuses"),
    "prizes": ("奖金", "Prizes"),
    "prize": ("奖金", "Prize"),
    "final": ("最终排名", "Final standings"),
    "seed": ("抽签种子", "Draw seed"),
    "reason": ("编排说明", "Why"),
    "updated": ("更新于", "Updated"),
    "lang": ("English", "中文"),
    "venue": ("地点", "Venue"),
    "no_rounds": ("尚未开始", "Not started yet"),
    "vs": ("对", "v"),
    "game_guandan": ("掼蛋", "Guandan"),
    "game_doudizhu": ("斗地主", "Dou Dizhu"),
    "game_gouji": ("够级", "Gouji"),
    "game_tractor": ("拖拉机", "Tractor"),
    "deal": ("副", "Deal"),
    "each": ("每人", "each"),
    "extra": ("独得", "extra"),
    "total": ("合计", "Total"),
    "who": ("操作", "By"),
    "when": ("时间", "When"),
    "before": ("更正前", "Before"),
    "after": ("更正后", "After"),
    "live": ("页面自动刷新", "This page refreshes itself"),
    "pt_level_points": ("级数分", "Level points"),
    "pt_match_points": ("场分", "Match points"),
    "pt_level_diff_points": ("级差分", "Level difference"),
    "pt_table_points": ("场分", "Table points"),
    "pt_small_points": ("小分", "Small points"),
    "pt_landlord_deals": ("做庄次数", "Landlord deals"),
    "pt_position_points": ("名次分", "Position points"),
    "pt_games_won": ("胜局", "Games won"),
    "pt_group_points": ("小组积分", "Group points"),
    "pt_head_to_head": ("相互胜负", "Head-to-head"),
    "pt_head_to_head_two": ("相互胜负", "Head-to-head"),
    "pt_net_points": ("净胜分", "Net points"),
    "pt_opponents_match_points": ("对手场分", "Opponents' match points"),
    "pt_opponents_points": ("对手积分", "Opponents' points"),
    "pt_lots": ("抽签", "Lots"),
    "pt_knockout_round": ("淘汰轮次", "Knockout round"),
}


def translator(lang: str):
    idx = 0 if lang == "zh" else 1

    def t(key: str, **kw) -> str:
        pair = STRINGS.get(key)
        text = pair[idx] if pair else key
        return text.format(**kw) if kw else text

    return t
