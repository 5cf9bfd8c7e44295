"""The one place that knows the site's public address: everything that prints or encodes a link (table
cards and their QR codes, manage links, staff sign-in links, Stripe return pages) asks here. At a venue the
laptop's LAN address (or PUBLIC_URL) is what phones in the hall can open (design.md v1.1)."""
from __future__ import annotations


def site_url() -> str:
    from ..config import get_settings
    settings = get_settings()
    return (settings.public_url or settings.site_url).rstrip("/")
