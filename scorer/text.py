"""How the ledger reads on a terminal: the words for how a hand was won, tables whose columns
line up with Chinese names in them, and the text of a session's state, its history, one entry
and a settlement. ``--json`` prints the objects instead; the commands are ``cli``."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from zipai.engine.variants import find_variant

from .settle import Settlement, money
from .state import Entry, SessionState

WON_BY = {"self_draw": "自摸", "stock": "翻牌", "discard": "点炮", "dealt": "起手"}
KIND = {"hand": "胡", "draw": "流局", "double": "双起手", "adjust": "调整"}


def width(text: str) -> int:
    """Display width: CJK characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain text table whose columns line up with Chinese names in them."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(width(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: Sequence[str]) -> str:
        return "  ".join(c + " " * (w - width(c)) for c, w in zip(r, widths, strict=True)).rstrip()
    out = [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


def _signed(v: int) -> str:
    return f"{v:+d}" if v else "0"


def _entry_line(st: SessionState, e: Entry) -> list[Any]:
    p = st.session.players
    if e.kind in ("hand", "double"):
        who = "、".join(p[w] for w in e.winners)
        how = WON_BY.get(e.won_by or "", e.won_by or "") + ("(双)" if e.kind == "double" else "")
        if e.discarder is not None:
            how += f"({p[e.discarder]})"
        specials = " ".join(sp["name"] for sp in e.specials)
        what = f"{who} {how}" + (" [按总数]" if e.entered_by == "total" else "")
    elif e.kind == "draw":
        what, specials = "流局", e.reason
    else:
        what, specials = "调整", e.reason
    row = [e.no, p[e.dealer], what, e.points if e.kind in ("hand", "double") else "",
           e.score if e.kind in ("hand", "double") else "", specials]
    row += [_signed(v) for v in e.payouts] if e.payouts else [""] * len(p)
    row += [f"第{e.round_closed.number}轮结算" if e.round_closed else ""] if st.plays_rounds else []
    if e.edited_by:
        row[2] = f"{row[2]} (改)"
    return row


def history_text(st: SessionState) -> str:
    p = st.session.players
    headers = ["#", "庄", "胡", "息", "分", "特殊", *p] + (["冲百"] if st.plays_rounds else [])
    return table(headers, [_entry_line(st, e) for e in st.history]) if st.history else "(no hands yet)"


def state_text(st: SessionState, history: bool = True) -> str:
    s = st.session
    shown = {**s.options, "rules_version": s.rules_version}
    keys = s.variant.option_keys
    opts = ", ".join(f"{k}={v}" for k, v in shown.items() if v is not None and k in keys)
    lines = [f"session {s.id} {s.name!r}: {s.variant.title} ({s.source}; {opts}), "
             f"stake {s.stake} per point, {st.hands} hands" + ("  [settled]" if st.locked else "")]
    rows = []
    projected, closing = st.projected()
    for i, name in enumerate(s.players):
        role = "庄" if i == st.dealer else ("数审" if i == st.idle else "")
        row: list[Any] = [i, name, role]
        if st.plays_rounds:
            row += [st.round_totals[i], _signed(st.net[i])]
        row += [_signed(projected[i]), f"{money(projected[i], s.stake):+.2f}"]
        rows.append(row)
    headers = ["seat", "player", "role"]
    if st.plays_rounds:
        headers += [f"round {st.round_number}", "closed rounds"]
    headers += ["net", "money"]
    lines.append(table(headers, rows))
    if st.plays_rounds and closing:
        lines.append(f"(net includes closing the open round {closing.number}: "
                     f"rounded {closing.rounded}, paid {closing.payments})")
    if history:
        lines += ["", history_text(st)]
    return "\n".join(lines)


def _title(preset: str) -> str:
    """A rule set's title (a damaged session's unknown name as it stands)."""
    variant = find_variant(preset) if isinstance(preset, str) else None
    return variant.title if variant is not None else str(preset)


def settlement_text(res: Settlement) -> str:
    s = res.session
    lines = [f"settlement of {s.name!r} ({'fewest payments' if res.mode == 'minimal' else 'pairwise'}), "
             f"stake {s.stake} per point" + ("  [locked]" if res.locked else "")]
    if res.closing_round:
        r = res.closing_round
        lines.append(f"closing round {r.number}: totals {r.totals} → rounded {r.rounded} → paid {r.payments}")
    lines.append(table(["player", "points", "money"],
                       [[n, _signed(p), f"{res.money(p):+.2f}"] for n, p in zip(s.players, res.points,
                                                                                    strict=True)]))
    lines.append("")
    if res.transfers:
        lines.append(table(["pays", "to", "points", "money"],
                           [[s.players[a], s.players[b], amt, f"{res.money(amt):.2f}"]
                            for a, b, amt in res.transfers]))
    else:
        lines.append("nobody owes anything")
    return "\n".join(lines)


def entry_text(st: SessionState, e: Entry) -> str:
    p = st.session.players
    head = f"recorded #{e.no} (event {e.event})"
    body = table(["#", "庄", "胡", "息", "分", "特殊", *p] + (["冲百"] if st.plays_rounds else []),
                 [_entry_line(st, e)])
    nxt = f"next dealer: {p[st.dealer]}" + (f", 数审: {p[st.idle]}" if st.idle is not None else "")
    if st.plays_rounds:
        tot = f"round {st.round_number} totals: " + ", ".join(
            f"{n} {v}" for n, v in zip(p, st.round_totals, strict=True))
    else:
        tot = "totals: " + ", ".join(f"{n} {_signed(v)}" for n, v in zip(p, st.net, strict=True))
    return "\n".join([head, body, tot, nxt])
