"""The demo tournament: seed 003's chamber day (Tractor + Guandan pairs, 20 CNY per person), seed 001's
Dou Dizhu individual event (15 places, 5 rounds) and seed 002's Gouji team event (teams of 3)."""
from __future__ import annotations

from datetime import timedelta

from chalicelib.bootstrap import deps
from chalicelib.models import EventConfig, TournamentIn
from chalicelib.services import organisers, tournaments

CLUBS = ["南宁河池商会", "南宁宜州商会", "南宁东蘭商会", "南宁大化商会"]
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN = "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超秀兰霞平刚桂英华建国红梅志强永辉海燕玉兰春梅"


def person(i: int) -> str:
    return SURNAMES[i % len(SURNAMES)] + GIVEN[(i * 7) % len(GIVEN)] + GIVEN[(i * 3 + 1) % len(GIVEN)]


def phone(i: int) -> str:
    return f"139{i:08d}"


def event_configs(now) -> list[dict]:
    window = {"opens_at": (now - timedelta(days=10)).isoformat(), "closes_at": (now + timedelta(days=10)).isoformat()}
    return [
        {"name": "拖拉机对抗赛 Tractor pairs", "game": "tractor", "entry": "pair", "capacity": 32,
         "fee": {"amount": 2000, "per": "person"},
         "registration": {**window, "eligibility": {"kind": "codes", "codes": ["HC2026", "YZ2026", "DL2026", "DH2026"]}},
         "stages": [{"name": "小组赛", "format": "round_robin", "groups": 4},
                    {"name": "淘汰赛", "format": "knockout", "advance": {"per_group": 2},
                     "scoring": {"method": "level_table", "best_of": 3}}],
         "prizes": [{"place_from": 1, "amount": 3000, "label": "冠军"}, {"place_from": 2, "amount": 2000, "label": "亚军"},
                    {"place_from": 3, "place_to": 4, "amount": 1000, "label": "季军"}]},
        {"name": "掼蛋积分赛 Guandan pairs Swiss", "game": "guandan", "entry": "pair", "capacity": 40,
         "fee": {"amount": 2000, "per": "person"}, "registration": window,
         "stages": [{"name": "积分赛", "format": "swiss", "rounds": 3,
                     "scoring": {"method": "level_points", "pass_a_points": 15}}],
         "prizes": [{"place_from": 1, "amount": 2000}, {"place_from": 2, "amount": 1200}, {"place_from": 3, "amount": 800}]},
        {"name": "北京杯二打一个人赛 Dou Dizhu", "game": "doudizhu", "entry": "individual", "capacity": 15,
         "fee": {"amount": 0}, "registration": window,
         "stages": [{"name": "积分循环赛", "format": "swiss", "rounds": 5}],
         "prizes": [{"place_from": 1, "amount": 5000}, {"place_from": 2, "amount": 3000}, {"place_from": 3, "amount": 2000},
                    {"place_from": 4, "place_to": 8, "amount": 1000}]},
        {"name": "够级团体赛 Gouji teams", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 16,
         "fee": {"amount": 0}, "registration": window,
         "stages": [{"name": "初赛淘汰", "format": "knockout"},
                    {"name": "复赛循环", "format": "round_robin", "advance": {"total": 8}, "carry_over": "none"}],
         "prizes": [{"place_from": 1, "amount": 1000}, {"place_from": 2, "amount": 600}, {"place_from": 3, "amount": 400},
                    {"place_from": 4, "place_to": 9, "amount": 100}, {"place_from": 10, "place_to": 12, "amount": 50}]},
    ]


# How many demo entries each event gets (a few short of capacity so registration can be tried).
DEMO_ENTRIES = [12, 16, 14, 8]


def load() -> dict:
    d = deps()
    org, token = organisers.create_organiser(d, "恒全杯组委会 (demo)")
    now = d.clock()
    t = tournaments.create_tournament(d, org, TournamentIn(
        name="第一届恒全杯拖拉机和掼蛋比赛 (demo)", venue="南宁市青秀区 · 河池商会活动中心", timezone="Asia/Shanghai",
        currency="CNY", starts_on=(now + timedelta(days=12)).date(), ends_on=(now + timedelta(days=13)).date(),
        # the local stage's demo cashier (演示支付): a newcomer walks register → pay → withdraw → refund
        payments={"providers": ["demo", "offline"]}))
    events = []
    for cfg in event_configs(now):
        events.append(tournaments.create_event(d, org, t.id, EventConfig.model_validate(cfg)))
    _register_demo_entries(d, events)
    return {"organiser_id": org.id, "token": token, "tournament_id": t.id, "event_ids": [e.id for e in events]}


def _register_demo_entries(d, events) -> None:
    try:
        from chalicelib.services import registration
    except ImportError:
        return
    n = 0
    for event, count in zip(events, DEMO_ENTRIES, strict=False):
        size = event.config.entry.members
        for k in range(count):
            members = []
            for m in range(size):
                n += 1
                members.append({"name": person(n), **({"phone": phone(n)} if m == 0 else {})})
            code = event.config.registration.eligibility.codes[k % 4] if event.config.registration.eligibility.codes else None
            registration.register_demo(d, event.id, {
                "name": f"{CLUBS[k % 4][2:4]}{k + 1}队" if size > 1 else members[0]["name"],
                "club": CLUBS[k % 4], "eligibility_code": code, "members": members})
