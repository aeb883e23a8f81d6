"""What the table page shows: one JSON object per language, built from the ledger's derived
state and worded by the app's own ``explain`` and ``i18n``, so a phone at the table reads the
same working as the app's result screen. The page only lays it out (``static/app.js``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from zipai.engine import Card, ScoredGroup, ZipaiError
from zipai.mobile.explain import explain, round_working
from zipai.mobile.i18n import LANGS, Translator
from zipai.scorer import Entry, SessionInfo, SessionState, Settlement

from .words import words

# the app's words the page uses as they are
APP_WORDS = ("winner", "won_by", "self_draw", "stock", "discard", "dealt", "from_whom", "total_label",
             "xing_count", "totals", "net", "dealer", "idle", "payouts", "transfers", "net_working",
             "language", "locked", "players", "history", "settle", "minimal", "pairwise")


def pick_lang(value: str | None) -> str:
    """The page's language: one of the app's (``zh_Hans``, ``zh_Hant``, ``en``), else simplified."""
    return value if value in LANGS else "zh_Hans"


def glyph(code: str, t: Translator) -> dict[str, Any]:
    """A card as printed (``d10`` → 拾) and whether it is red; a back keeps the engine's text."""
    try:
        card = Card.parse(code)
    except (ZipaiError, ValueError):
        return {"t": t.script(str(code)), "red": False}
    return {"t": card.chinese(t.traditional), "red": card.is_red}


def photo_file(photo: str | None, ledger: Path) -> Path | None:
    """Where a hand's stored photo path points (relative paths from the ledger's folder), if that
    is a regular file. The page never sees the path: only the hand's number."""
    if not photo:
        return None
    p = Path(photo).expanduser()
    if not p.is_absolute():
        p = ledger.parent / p
    try:
        return p if p.is_file() else None
    except OSError:
        return None


def groups_view(groups: Sequence[ScoredGroup | Mapping[str, Any]], t: Translator) -> list[dict[str, Any]]:
    """The page's groups, from a hand just scored (``ScoredGroup``) or a ledger row's stored ones."""
    return [_group_view(g, t) if isinstance(g, ScoredGroup) else
            {"name": t.script(str(g.get("name", ""))), "cards": [glyph(c, t) for c in g.get("cards", [])],
             "points": g.get("points", 0), "concealed": g.get("state") == "concealed",
             "winning": bool(g.get("winning_card"))} for g in groups]


def _group_view(g: ScoredGroup, t: Translator) -> dict[str, Any]:
    return {"name": t.script(g.name), "cards": [glyph(c, t) for c in g.cards], "points": g.points,
            "concealed": g.state == "concealed", "winning": g.winning_card}


def payout_lines(payouts: Sequence[int], players: Sequence[str]) -> list[dict[str, Any]]:
    return [{"name": players[i], "amount": int(v)} for i, v in enumerate(payouts)]


def hand_view(e: Entry, s: SessionInfo, t: Translator, ledger: Path) -> dict[str, Any]:
    """One line of the history with its working: the title, the groups, the explained steps,
    each seat's payout and the total after it."""
    players = s.players
    d: dict[str, Any] = {"no": e.no, "event": e.event, "kind": e.kind, "score": e.score,
                         "payouts": payout_lines(e.payouts, players), "totals_after": list(e.totals_after),
                         "round_closed": e.round_closed.number if e.round_closed else None,
                         "groups": [], "working": [], "photo": None}
    if e.kind == "hand":
        who = players[e.winners[0]] if e.winners else "?"
        how = t(e.won_by) if e.won_by else ""
        frm = f" ← {players[e.discarder]}" if e.discarder is not None else ""
        d["title"] = f"{t('hand_no', n=e.no)} · {who} {how}{frm}"
        if e.entered_by == "total":
            d["title"] += f" · {t('by_total')}"
        d["groups"] = groups_view(e.groups, t)
        d["working"] = explain(e.output or {}, s.preset, players, t)
    elif e.kind == "double":
        names = "、".join(players[w] for w in e.winners)
        d["title"] = f"{t('hand_no', n=e.no)} · {t('double_entry')} · {names}"
        d["groups"] = groups_view(e.groups, t)
        raws = e.input if isinstance(e.input, list) else []
        for raw, r in zip(raws, (e.output or {}).get("results") or [], strict=False):
            if raw.get("winner") in e.winners:  # the winning layouts, as the groups are
                d["working"] += explain(r, s.preset, players, t)
    elif e.kind == "draw":
        d["title"] = f"{t('hand_no', n=e.no)} · {t('draw_entry')}"
    else:
        d["title"] = f"{t('hand_no', n=e.no)} · {t('adjust_entry', r=e.reason)}"
    d["specials"] = [t.special(str(x.get("id", "")), str(x.get("name", ""))) for x in e.specials]
    if photo_file(e.photo, ledger) is not None:
        d["photo"] = f"photo/{e.event}"
    return d


def totals_view(st: SessionState, t: Translator) -> dict[str, Any]:
    s = st.session
    projected = st.projected()[0]
    head = [t("players")] + ([t("round_totals", n=st.round_number)] if st.plays_rounds else []) + [t("net")]
    rows = []
    for i, name in enumerate(s.players):
        role = t("dealer") if i == st.dealer else (t("idle") if i == st.idle else "")
        rows.append({"name": name, "role": role,
                     "round": st.round_totals[i] if st.plays_rounds else None,
                     "net": projected[i], "money": f"{projected[i] * s.stake:+.2f}"})
    return {"head": head, "rows": rows}


def settlement_view(res: Settlement, t: Translator, lang: str) -> dict[str, Any]:
    w = words(lang)
    s = res.session
    return {
        "title": (w["settled"] if res.locked else w["if_settled"]) + " · " + t(res.mode),
        "locked": res.locked,
        "rows": [{"name": s.players[i], "points": p, "money": f"{res.money(p):+.2f}"}
                 for i, p in enumerate(res.points)],
        "transfers": [f"{t('pays', a=s.players[a], b=s.players[b])}: {amt} · {res.money(amt):.2f}"
                      for a, b, amt in res.transfers] or [w["nothing_to_pay"]],
    }


def session_view(st: SessionState, settlement: Settlement, lang: str, ledger: Path) -> dict[str, Any]:
    """Everything the page shows of the session, newest hand first."""
    t = Translator(lang)
    s = st.session
    closing = st.projected()[1]
    page_words = words(lang)
    page_words.update({k: t(k) for k in APP_WORDS})
    page_words["stake"] = page_words["stake"].format(s=s.stake)
    return {
        "lang": lang,
        "stamp": {"events": st.events, "last_event": st.last_event},
        "words": page_words,
        "session": {"id": s.id, "name": s.name, "rules": t(s.preset), "unit": t.script(s.variant.unit),
                    "players": list(s.players), "locked": st.locked, "hands": st.hands,
                    "plays_rounds": st.plays_rounds, "turned_cards": bool(s.variant.turned_cards)},
        "totals": totals_view(st, t),
        "rounds": round_working(st.rounds, s.players, t, closing) if st.plays_rounds else [],
        "hands": [hand_view(e, s, t, ledger) for e in reversed(st.history)],
        "settlement": settlement_view(settlement, t, lang),
    }
