"""The security headers of every answer (issue 20), in one place for the three servers that give them: the API
(a Chalice middleware, here and on Lambda), the venue's site server (scripts/site_server.py) and CloudFront
(a response headers policy in infra/stack.py).

No inline script anywhere (published pages load live.js; the front end loads its own files), no framing (a
page of ours cannot be put under someone else's), no content-type guessing, and no referrer beyond our origin:
a manage link's token travels in the URL and must not leak to another site."""
from __future__ import annotations

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}

# The API answers JSON, and a few HTML pages to print (table cards): their styles are inline, images inline SVG
# or data: URLs; nothing may run.
API_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


def site_csp(api_origin: str) -> str:
    """The site's policy: scripts and styles from the site itself; calls to the API's origin."""
    connect = " ".join(x for x in ("'self'", api_origin) if x)
    return ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
            f"connect-src {connect}; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'")


def api_headers() -> dict[str, str]:
    return {**COMMON, "Content-Security-Policy": API_CSP}


def site_headers(api_origin: str) -> dict[str, str]:
    return {**COMMON, "Content-Security-Policy": site_csp(api_origin)}
