"""What a tournament's and an event's poster say, and the sharing card of their pages (title, description,
image): one wording for the PNG, the published pages' Open Graph tags and the registration page."""
from __future__ import annotations

from zoneinfo import ZoneInfo

from ..glossary import term
from ..models import Event, Tournament
from ..publish.money_text import money_minor_text
from ..publish.poster import Poster, render_png
from .links import site_url

def dates(t: Tournament) -> str:
    if t.ends_on != t.starts_on:
        return f"{t.starts_on:%Y年%-m月%-d日} – {t.ends_on:%-m月%-d日}"
    return f"{t.starts_on:%Y年%-m月%-d日}"


def fee_text(event: Event, currency: str) -> str:
    fee = event.config.fee
    if fee.amount == 0:
        return "免费"
    # the one money format of the pages (issue 39): "¥20.00 / 人", as the registration page writes the fee
    return f"{money_minor_text(fee.amount, currency, 'zh')} / {'人' if fee.per == 'person' else '队'}"


def deadline_text(event: Event, tz: str) -> str:
    closes = event.config.registration.closes_at
    return closes.astimezone(ZoneInfo(tz)).strftime("%Y年%-m月%-d日 %H:%M") if closes else ""


KIND = {"individual": "个人", "pair": "双人", "team": "团体"}


def kind_text(event: Event) -> str:
    entry = event.config.entry
    size = f" {entry.members} 人一队" if entry.kind == "team" else ""
    return f"{term('game', event.config.game)} · {KIND[entry.kind]}{size}"


def day_url(t: Tournament) -> str:
    """The day's registration: one form for several events (api.md v1.1)."""
    return f"{site_url()}/day.html?t={t.id}"


def register_url(event: Event) -> str:
    return f"{site_url()}/register.html?e={event.id}&t={event.tournament_id}"


def tournament_poster(t: Tournament, events: list[Event], now=None) -> Poster:
    """The day's poster: its events with their fees, and the first deadline (what the reader must not miss).
    `now` is not used: a poster depends only on what it shows (the publisher redraws it when that changes)."""
    closes = sorted(e.config.registration.closes_at for e in events if e.config.registration.closes_at)
    first = closes[0].astimezone(ZoneInfo(t.timezone)).strftime("%Y年%-m月%-d日 %H:%M") if closes else ""
    return Poster(title=t.name, lines=[("时间", dates(t)), ("地点", t.venue), ("截止", first)],
                  items=[f"{e.config.name}（{kind_text(e)}） {fee_text(e, t.currency)}" for e in
                         sorted(events, key=lambda e: e.id)],
                  url=day_url(t))


def event_poster(t: Tournament, event: Event) -> Poster:
    return Poster(title=event.config.name, subtitle=t.name,
                  lines=[("项目", kind_text(event)), ("时间", dates(t)), ("地点", t.venue),
                         ("报名费", fee_text(event, t.currency)), ("截止", deadline_text(event, t.timezone)),
                         ("名额", f"{event.config.capacity}")],
                  url=register_url(event))


def tournament_png(t: Tournament, events: list[Event]) -> bytes:
    return render_png(tournament_poster(t, events))


def event_png(t: Tournament, event: Event) -> bytes:
    return render_png(event_poster(t, event))


def share_description(t: Tournament, events: list[Event]) -> str:
    """One line for a chat's link card: when, where, what."""
    names = "、".join(e.config.name for e in sorted(events, key=lambda e: e.id)[:4])
    return " · ".join(x for x in (dates(t), t.venue, names) if x)
