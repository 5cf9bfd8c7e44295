"""The security headers of every answer (issue 20), in one place for the three servers that give them: the API
(a Chalice middleware, here and on Lambda), the venue's site server (scripts/site_server.py) and CloudFront
(a response headers policy in infra/stack.py).

No inline script but the few the front end's build writes into its pages, each allowed by its hash (the table page
starts its reads before its app has downloaded: a file of its own would cost a round trip), no framing (a
page of ours cannot be put under someone else's), no content-type guessing, and no referrer beyond our origin:
a manage link's token travels in the URL and must not leak to another site."""
from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path
from collections.abc import Iterable

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}

# The API answers JSON, and a few HTML pages to print (table cards): their styles are inline, images inline SVG
# or data: URLs; nothing may run.
API_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


def inline_script_hashes(pages: Iterable[str]) -> list[str]:
    """The CSP sources ('sha256-…') of every inline script in these HTML texts (the built pages), in order."""
    found = (m.group(1) for page in pages for m in _INLINE_SCRIPT.finditer(page))
    hashes = ("'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'" for s in found)
    return list(dict.fromkeys(hashes))


def built_pages(dist: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(dist.glob("*.html"))]


def with_api(page: str, api: str) -> str:
    """A built page told where the API is: its empty <meta name="api"> filled in (the venue's site server and the
    deployment do this; the page's scripts read it)."""
    return page.replace(API_META, f'<meta name="api" content="{html.escape(api, quote=True)}">', 1)


API_META = '<meta name="api" content="">'
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def site_csp(api_origin: str, script_hashes: Iterable[str] = ()) -> str:
    """The site's policy: scripts, workers and styles from the site itself (and the build's inline scripts by hash);
    calls to the API's origin."""
    connect = " ".join(x for x in ("'self'", api_origin) if x)
    scripts = " ".join(("'self'", *script_hashes))
    # worker-src: the offline pages' service workers (sw-score.js, sw-organiser.js), from the site itself
    return (f"default-src 'self'; script-src {scripts}; worker-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
            f"connect-src {connect}; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'")


def api_headers() -> dict[str, str]:
    return {**COMMON, "Content-Security-Policy": API_CSP}


def site_headers(api_origin: str, script_hashes: Iterable[str] = ()) -> dict[str, str]:
    return {**COMMON, "Content-Security-Policy": site_csp(api_origin, script_hashes)}
