"""What the CDN and the browsers may keep of each published file (chalicelib/publish/sinks.cache_control)."""
import re

from chalicelib.publish.sinks import cache_control
from chalicelib.publish.site_pages import ASSETS


def _max_age(value: str) -> int:
    return int(re.search(r"max-age=(\d+)", value).group(1))


def test_files_rewritten_under_their_own_name_are_never_kept_a_year():
    """The scripts and styles change with a deploy and keep their names; audit.json changes at every audited change:
    a year's `immutable` kept phones on the old copies long after either."""
    for lang in ("", "en/", "vi/"):
        for asset in ASSETS:
            value = cache_control(f"{lang}t/T1/{asset}")
            assert "immutable" not in value and _max_age(value) <= 300, (asset, value)
    for key in ("t/T1/E1/audit.json", "t/T1/E1/poster.png", "r/R1/style.css", "p/style.css"):
        value = cache_control(key)
        assert "immutable" not in value and _max_age(value) <= 300, (key, value)


def test_a_full_audit_segment_is_kept_for_good():
    """Only full segments are written as audit-<k>.json (one chain) or audit-<lane>-<k>.json (lanes): they never
    change again, so a verifier's browser may keep them."""
    for key in ("t/T1/E1/audit-1.json", "t/T1/E1/audit-15-3.json"):
        assert "immutable" in cache_control(key)
    for key in ("t/T1/E1/audit.json", "t/T1/E1/audit-x.json", "t/T1/E1/audit-1.json.tmp"):
        assert "immutable" not in cache_control(key)
