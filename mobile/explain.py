"""The score explained line by line, the way a player says it, from the engine's ``steps``.

No Kivy and no rule here: each step's numbers are the engine's, and this module only words
them from the i18n tables (``zipai score --text`` prints the same steps). A hand is the engine's
``Result`` when just scored, or the output a ledger row stored (a dict, the JSON contract's);
a row stored without ``steps`` still gets the total, the specials and the score.

>>> from zipai.mobile.i18n import Translator
>>> r = {"points": 16, "score": 26, "specials": [], "steps": [
...     {"code": "points", "value": 16}, {"code": "minimum", "value": 15, "reached": True},
...     {"code": "normal", "value": 26, "how": "discard"}, {"code": "score", "value": 26, "from": "normal"},
...     {"code": "discarder", "seat": 2, "value": -16}]}
>>> for line in explain(r, "hunan", ("甲", "乙", "丙"), Translator()): print(line)
七组合计 16福
起胡 15：16够了
点炮 +10 → 26
得分 26（按平胡）
丙 放炮：-16（26减去点炮的奖励10）
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zipai.engine import Result
from zipai.engine.variants import find_variant

from .i18n import Translator

Scored = Result | Mapping[str, Any]
"""A hand just scored (the engine's ``Result``) or a ledger row's stored output (its JSON)."""


@dataclass(frozen=True, slots=True)
class _Told:
    """What the words need of a scored hand, read from either form."""

    steps: Sequence[Mapping[str, Any]]
    points: int
    score: int
    specials: Sequence[tuple[str, str]]  # (id, name)
    reason: str | None  # the code of why it does not win

    @classmethod
    def of(cls, r: Scored) -> _Told:
        if isinstance(r, Result):
            return cls(r.steps, r.points, r.score, [(x.id, x.name) for x in r.specials],
                       r.reason.code if r.reason else None)
        return cls(r.get("steps") or [], r.get("points", 0), r.get("score", 0),
                   [(x["id"], x.get("name", "")) for x in r.get("specials") or []],
                   (r.get("reason") or {}).get("code"))


def explain(result: Scored, preset: str, players: Sequence[str], t: Translator) -> list[str]:
    """One line a step: the groups' points, the total against the minimum, each special by name,
    each step to the hand score, what the discarder and 数审 get, and who pays."""
    told = _Told.of(result)
    steps = told.steps
    variant = find_variant(preset)
    unit = t.script(variant.unit if variant is not None else "")
    if not steps:
        lines: list[str] = [t("step_points", n=told.points, unit=unit)]
        lines += [t.special(i, name) for i, name in told.specials]
        return lines  # the score itself is the screen's big line
    points = next((s["value"] for s in steps if s.get("code") == "points"), told.points)
    minimum = next((s for s in steps if s.get("code") == "minimum"), {})
    score = next((s["value"] for s in steps if s.get("code") == "score"), told.score)
    lines = []
    for s in steps:
        code = s.get("code", "")
        if code == "zi" and minimum:  # the formula, not only its answer: (12 − 10) ÷ 3 + 1 = 1
            lines.append(t("step_zi_working", n=s.get("value", 0), step=s.get("step", 0), points=points,
                           m=minimum.get("value", 0), unit=unit))
        elif code == "discarder" and s.get("value") == -(score - 10) and "discard" in _hows(steps):
            lines.append(t("step_discarder_less", name=_seat(players, s.get("seat")), n=s["value"],
                           score=score))
        elif code == "special":
            line = _step(s, points, unit, players, t)
            if points > 0 and s.get("value") == 2 * points:  # 三十福 / 红福: the doubling shown
                line = t("step_special_double", name=t.special(str(s.get("id", ""))), p=points, n=s["value"])
            if minimum and not minimum.get("reached"):  # 飘福, 乌福…: wins below the minimum
                line += t("step_below_minimum_wins")
            lines.append(line)
        elif (line := _step(s, points, unit, players, t)):
            lines.append(line)
        if code == "score" and s.get("from") not in (None, "normal"):
            normal = next((x["value"] for x in steps if x.get("code") == "normal"), None)
            if normal is not None:  # only the highest counts: the others are set aside, not added
                lines.append(t("step_set_aside", n=normal))
    return lines


def _hows(steps: Sequence[Mapping[str, Any]]) -> set[str]:
    return {str(s.get("how", "")) for s in steps if s.get("code") == "normal"}


def why_not(result: Scored, unit: str, t: Translator) -> str:
    """Why a hand does not win, with its numbers: 12 against 15, not only "below the minimum"."""
    told = _Told.of(result)
    steps = told.steps
    minimum = next((s for s in steps if s.get("code") == "minimum"), None)
    points = next((s["value"] for s in steps if s.get("code") == "points"), told.points)
    if minimum is not None and not minimum.get("reached"):
        return t("not_winning_short", n=points, m=minimum.get("value", 0), unit=unit)
    code = told.reason or "not_winning"
    return t("not_winning", msg=t.error(code))


def _seat(players: Sequence[str], seat: Any) -> str:
    return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?"


def _step(s: Mapping[str, Any], points: int, unit: str, players: Sequence[str], t: Translator) -> str:
    code, n = s.get("code", ""), s.get("value", 0)
    if code == "points":
        return t("step_points", n=n, unit=unit)
    if code == "minimum":
        return t("step_minimum_ok" if s.get("reached") else "step_minimum_short", m=n, n=points)
    if code == "special":
        return t("step_special", name=t.special(str(s.get("id", ""))), n=n)
    if code == "normal":
        key = f"step_normal_{s.get('how', 'held')}"
        return t(key, n=n) if t(key) != key else t("step_score", n=n)
    if code == "bonus":
        return t("step_bonus", name=t.special(str(s.get("on", ""))), n=n)
    if code == "score":
        frm = s.get("from")
        if frm is None:
            return t("step_score", n=n)
        name = t("normal_name") if frm == "normal" else t.special(str(frm))
        return t("step_score_from", n=n, name=name)
    if code == "discarder":
        return t("step_discarder", name=_seat(players, s.get("seat")), n=n)
    if code == "idle":
        return t("step_idle", name=_seat(players, s.get("seat")), n=n, of=s.get("of", 0))
    if code == "zi":
        return t("step_zi", n=n, step=s.get("step", 0))
    if code == "xing":
        return t("step_xing", n=n)
    if code == "fan":
        items = "、".join(t.special(str(i)) for i in s.get("items") or [])
        return t("step_fan_as_zi" if s.get("as_zi") else "step_fan", n=n, items=items)
    if code == "pay":
        seats = "、".join(_seat(players, x) for x in s.get("seats") or [])
        times = int(s.get("times", 1) or 1)
        if times > 1:
            return t("step_pay_times", seats=seats, n=n, times=times, total=n * times)
        return t("step_pay", seats=seats, n=n)
    return ""  # a step this app has no words for yet stays off the screen rather than in English


def round_working(rounds: Sequence[Any], players: Sequence[str], t: Translator,
                  open_round: Any = None) -> list[str]:
    """Hunan 冲百福, each round: totals → rounded to tens → R×(N−1) − ΣR, then each net as the
    sum of its rounds' payments (the ledger's ``Round`` objects carry every number)."""
    n = len(players)
    lines: list[str] = []
    pays: list[list[int]] = []
    for r in [*rounds, *([open_round] if open_round is not None else [])]:
        tag = t("round_open_tag") if r is open_round else ""
        lines.append(t("round_working", n=r.number, tag=tag, totals=_nums(r.totals),
                       rounded=_nums(r.rounded)))
        for i, name in enumerate(players):
            others = "+".join(_paren(v) for j, v in enumerate(r.rounded) if j != i)
            lines.append(t("round_pay", name=name, r=_paren(r.rounded[i]), k=n - 1, others=others,
                           pay=r.payments[i]))
        pays.append(list(r.payments))
    if len(pays) > 1:
        for i, name in enumerate(players):
            parts = "+".join(_paren(p[i]) for p in pays)
            lines.append(t("net_sum", name=name, parts=parts, net=sum(p[i] for p in pays)))
    return lines


def _paren(v: int) -> str:
    return f"({v})" if v < 0 else str(v)


def _nums(vs: Sequence[int]) -> str:
    return " / ".join(f"{v:+d}" for v in vs)
