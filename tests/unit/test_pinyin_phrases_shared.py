"""pypinyin's phrase dictionary made smaller in place (services/hall._phrases_shared, issue 43: the publisher's
memory) gives every name the same initials, and every phrase the same readings, as the dictionary as loaded: every
phrase of the dictionary itself, the demo's names and 5,000 names of common surnames and given characters, each
converted before and after in a fresh process (no earlier test's pypinyin). And pypinyin loaded by the publisher
first (services/hall._lean_pypinyin: its phrases read one by one, shared as they come) converts them all as
pypinyin loaded as it ships does."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, random, re, sys
from pypinyin import Style, constants, lazy_pinyin, pinyin
from chalicelib.services import hall
names = json.loads(sys.stdin.read())
texts = list(constants.PHRASES_DICT) + names

def convert():
    return [("".join(lazy_pinyin(t, style=Style.FIRST_LETTER, errors="default")), pinyin(t, style=Style.TONE3))
            for t in texts]

before = convert()
shared = {id(r) for v in constants.PHRASES_DICT.values() for r in v}
hall._phrases_shared()
after_ids = {id(r) for v in constants.PHRASES_DICT.values() for r in v}
initials = [hall.initials(n) for n in names]
print(json.dumps({"same": before == convert(), "lists_before": len(shared), "lists_after": len(after_ids),
                  "texts": len(texts), "initials": initials}))
"""

CONVERT = r"""
import json, sys
lean = sys.argv[1] == "lean"
if lean:   # the publisher loads pypinyin itself, with a name's initials
    from chalicelib.services import hall
    hall.initials("张三丰")
from pypinyin import Style, constants, lazy_pinyin, pinyin, pinyin_dict
from pypinyin.seg import mmseg
texts = sorted(constants.PHRASES_DICT) + json.loads(sys.stdin.read())
print(json.dumps({"phrases": [[k, v] for k, v in constants.PHRASES_DICT.items()], "prefixes": len(mmseg.seg._prefix_set._set),
                  "copied": constants.PINYIN_DICT is not pinyin_dict.pinyin_dict,
                  "converted": [("".join(lazy_pinyin(t, style=Style.FIRST_LETTER, errors="default")),
                                 pinyin(t, style=Style.TONE3)) for t in texts]}, ensure_ascii=False))
"""

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤单仇解区朴查曾乐尉迟长孙"
GIVEN = "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超兰霞平刚桂华建国红长乐重庆行银和朝阳都会弟音乐调查单车曾经"


def _names() -> list[str]:
    import random
    rng = random.Random(43)
    demo = re.findall(r"[\u4e00-\u9fff]{2,4}", (ROOT / "scripts" / "demo.py").read_text(encoding="utf-8"))
    common = {rng.choice(SURNAMES) + "".join(rng.choice(GIVEN) for _ in range(rng.randint(1, 2))) for _ in range(5000)}
    return sorted(set(demo) | common | {"张三丰", "Nguyễn Văn An", "单雄信", "曾国藩", "解缙", "尉迟恭", "长孙无忌"})


def test_the_phrase_dictionary_made_smaller_gives_the_same_readings_and_initials():
    names = _names()
    done = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(names), capture_output=True, text=True,
                          cwd=ROOT, check=True, timeout=120)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["texts"] > 45_000 and got["same"]
    assert got["lists_after"] < got["lists_before"] / 10   # the lists are shared (the memory the change is for)
    assert got["initials"][names.index("张三丰")] == "zsf"


def test_pypinyin_loaded_lean_by_the_publisher_reads_every_phrase_and_name_as_shipped():
    names = _names()
    runs = {how: subprocess.Popen([sys.executable, "-c", CONVERT, how], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, cwd=ROOT) for how in ("shipped", "lean")}   # side by side
    got = {}
    for how, proc in runs.items():
        out, _ = proc.communicate(json.dumps(names), timeout=120)
        assert proc.returncode == 0, how
        got[how] = json.loads(out.strip().splitlines()[-1])
    assert len(got["shipped"]["phrases"]) > 45_000 and got["shipped"]["prefixes"] > 80_000
    assert got["lean"]["phrases"] == got["shipped"]["phrases"]   # the same phrases, readings and order
    assert got["lean"]["prefixes"] == got["shipped"]["prefixes"]
    assert got["lean"]["converted"] == got["shipped"]["converted"]
    assert got["shipped"]["copied"] and not got["lean"]["copied"]   # loaded lean: no second copy of its dictionaries
