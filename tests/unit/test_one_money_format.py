"""Issue 39: one money format from one helper. The app's format.js (money from minor units, moneyUnits for the
prize tables and bomb bonuses set in yuan, which the console wrote "5000 元"), the published pages'
publish/money_text.py and the poster's fee (it wrote "¥20 / 人") say every amount alike, in every currency and
language the platform has."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from chalicelib.models import CURRENCY_EXPONENT
from chalicelib.publish.money_text import money_minor_text, money_text
from datetime import UTC

ROOT = Path(__file__).resolve().parents[2]
FORMAT = ROOT / "frontend" / "app" / "src" / "shared" / "format.js"
UNITS = (0, 0.5, 300, 5000, 1234567.5)
LANGS = {"zh": "zh-CN", "en": "en", "vi": "vi"}


def test_the_apps_money_helper_writes_what_the_published_pages_write():
    node = shutil.which("node")
    assert node, "node is needed (make deps installs the project's Node tooling)"
    cases = [(lang, cur, a) for lang in LANGS for cur in CURRENCY_EXPONENT for a in UNITS]
    minor = [(lang, cur, int(a * 10 ** CURRENCY_EXPONENT[cur])) for lang, cur, a in cases]
    script = (f"const f = await import({json.dumps(FORMAT.as_uri())});"
              f"const L = {json.dumps(LANGS)};"
              f"console.log(JSON.stringify([{json.dumps(cases)}.map(([l, c, a]) => f.moneyUnits(a, c, L[l])),"
              f"{json.dumps(minor)}.map(([l, c, m]) => f.money(m, c, L[l]))]));")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    units, minors = json.loads(done.stdout)
    for (lang, cur, a), got in zip(cases, units, strict=True):
        assert got == money_text(a, cur, lang), (lang, cur, a)
    for (lang, cur, m), got in zip(minor, minors, strict=True):
        assert got == money_minor_text(m, cur, lang), (lang, cur, m)


def test_the_posters_fee_is_in_the_one_format():
    from datetime import datetime

    from chalicelib.models import Event, EventConfig
    from chalicelib.services.posters import fee_text
    cfg = EventConfig.model_validate({"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8,
                                      "fee": {"amount": 2050, "per": "person"}, "stages": [{"format": "swiss", "rounds": 3}]})
    ev = Event(id="e", tournament_id="t", organiser_id="o", config=cfg, created_at=datetime.now(UTC))
    assert fee_text(ev, "CNY") == "¥20.50 / 人" == f"{money_minor_text(2050, 'CNY', 'zh')} / 人"
    assert fee_text(ev, "HKD") == "HK$20.50 / 人"
