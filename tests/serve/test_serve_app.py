"""The table page's server without a browser (Starlette's test client): who gets in, what the
view says, what a guest may send, and ``zipai serve``'s own lines."""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    import starlette  # noqa: F401
except ImportError:  # the [serve] extra: scripts/setup.sh --all installs it, so CI must have it
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("the [serve] extra is not installed", allow_module_level=True)

from starlette.testclient import TestClient

from zipai.cli import _missing
from zipai.mobile.explain import explain, round_working
from zipai.mobile.i18n import Translator
from zipai.scorer import Ledger
from zipai.serve import app as appmod
from zipai.serve import cli as servecli
from zipai.serve.app import CSP, Config, Throttle, make_app, new_token
from zipai.vision.decode import decode
from zipai.vision.detector import models_dir

ROOT = Path(__file__).resolve().parents[2]
HAND = json.loads((ROOT / "examples" / "l1_hunan.json").read_text(encoding="utf-8"))
PLAYERS = ("甲", "乙", "丙")


def _ledger(tmp_path: Path) -> tuple[Path, Any]:
    db = tmp_path / "ledger.db"
    with Ledger(db) as led:
        s = led.new_session("周五", "hunan", list(PLAYERS))
    return db, s


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TestClient, Config]]:
    db, s = _ledger(tmp_path)
    cfg = Config(db, s, new_token(), new_token(), proposals=True)
    with TestClient(make_app(cfg)) as client:
        yield client, cfg


def g(cfg: Config, rest: str = "") -> str:
    return f"/t/{cfg.guest_token}/{rest}"


def h(cfg: Config, rest: str = "") -> str:
    return f"/t/{cfg.host_token}/{rest}"


def test_tokens_carry_at_least_128_random_bits() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and all(len(t) >= 22 for t in tokens)  # 22 base64 characters: 132 bits


def test_every_url_needs_the_token_and_no_url_names_a_file(table: tuple[TestClient, Config]) -> None:
    c, cfg = table
    ok = c.get(g(cfg))
    assert ok.status_code == 200 and "text/html" in ok.headers["content-type"]
    assert ok.headers["content-security-policy"] == CSP and ok.headers["x-frame-options"] == "DENY"
    assert ok.headers["referrer-policy"] == "no-referrer"
    for path in ("/", "/t/", f"/t/{new_token()}/", f"/t/{new_token()}/view", f"/t/{cfg.guest_token[:-1]}/",
                 "/app.js", "/favicon.ico", g(cfg, "index.html"), g(cfg, "static/app.js"),
                 g(cfg, "..%2f..%2fetc%2fpasswd"), g(cfg, "photo/..%2fledger.db"), g(cfg, "photo/1")):
        r = c.get(path)
        assert r.status_code == 404, path
        assert r.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in r.headers[
            "content-security-policy"]
    assert c.get(g(cfg, "app.js")).headers["content-type"].startswith("text/javascript")


def test_repeated_wrong_tokens_are_slowed(table: tuple[TestClient, Config],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    c, cfg = table
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)
    monkeypatch.setattr(appmod, "slow_down", sleep)
    for _ in range(6):
        assert c.get(f"/t/{new_token()}/view").status_code == 404
    assert waits == [0.5, 1.0, 1.5]  # three free misses, then each waits longer
    assert c.get("/favicon.ico").status_code == 404 and len(waits) == 3  # no token: no guess
    assert c.get(g(cfg, "view")).status_code == 200 and len(waits) == 3

    t = Throttle(free=1, step=1.0, most=2.0, window=10.0, clients=2)
    assert [t.miss("a", now=0.0) for _ in range(4)] == [0.0, 1.0, 2.0, 2.0]
    assert t.miss("a", now=100.0) == 0.0  # a quiet while forgives
    for who in ("b", "c", "d"):
        t.miss(who, now=100.0)
    assert len(t._misses) == 2  # a flood of addresses cannot grow it


def test_the_view_words_every_hand_and_round_as_the_app_does(table: tuple[TestClient, Config]) -> None:
    c, cfg = table
    with Ledger(cfg.db) as led:
        e = led.record_hand("周五", HAND)
        st = led.state("周五")
    v = c.get(g(cfg, "view?lang=zh_Hant")).json()
    t = Translator("zh_Hant")
    assert v["hands"][0]["working"] == explain(e.output, "hunan", PLAYERS, t)
    assert v["rounds"] == round_working(st.rounds, PLAYERS, t, st.projected()[1])
    assert [r["net"] for r in v["totals"]["rows"]] == st.projected()[0]
    assert v["settlement"]["transfers"][0].startswith("甲 付 乙: 40")
    assert v["hands"][0]["groups"][0]["cards"][0] == {"t": "伍", "red": False}
    assert v["role"] == "guest" and c.get(h(cfg, "view")).json()["role"] == "host"
    assert c.get(g(cfg, "view?lang=xx")).json()["lang"] == "zh_Hans"


def test_without_proposals_the_server_cannot_write(tmp_path: Path) -> None:
    db, s = _ledger(tmp_path)
    cfg = Config(db, s, new_token(), new_token(), proposals=False)
    app = make_app(cfg)
    with TestClient(app) as c:
        assert app.table.ledger.readonly
        r = c.post(g(cfg, "propose/total"), json={"winner": 1, "won_by": "self_draw", "total": 20})
        assert r.status_code == 403 and c.get(g(cfg, "view")).json()["proposals_open"] is False
    with Ledger(db, readonly=True) as led:
        assert led.state("周五").events == 0


def test_only_the_host_records_a_proposal(table: tuple[TestClient, Config]) -> None:
    c, cfg = table
    pid = c.post(g(cfg, "propose/total"), json={"winner": 2, "won_by": "discard", "from": 0, "total": 20,
                                               "by": "小王"}).json()["id"]
    prop = c.get(g(cfg, "view")).json()["proposals"][0]
    assert prop["id"] == pid and prop["by"] == "小王的提议" and prop["working"]
    assert c.post(g(cfg, f"proposal/{pid}/accept")).status_code == 404  # a guest's link cannot
    assert c.post(h(cfg, f"proposal/{pid}/forget")).status_code == 404
    with Ledger(cfg.db, readonly=True) as led:
        assert led.state("周五").events == 0
    assert c.post(h(cfg, f"proposal/{pid}/accept")).json() == {"recorded": 1}
    assert c.post(h(cfg, f"proposal/{pid}/accept")).status_code == 404  # answered once
    with Ledger(cfg.db, readonly=True) as led:
        e = led.state("周五").history[0]
    assert e.input == {"winner": 2, "won_by": "discard", "from": 0, "total": 20}
    assert c.get(g(cfg, "view")).json()["proposals"] == []
    with Ledger(cfg.db) as led:
        led.settle("周五")
    r = c.post(g(cfg, "propose/total"), json={"winner": 2, "won_by": "self_draw", "total": 20})
    assert r.status_code == 409 and "settled" in r.json()["error"]


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"winner": 5, "won_by": "self_draw", "total": 20}, 400, "'winner' must be a whole number from 0 to 2"),
    ({"winner": 1, "won_by": "magic", "total": 20}, 400, "'won_by' must be one of"),
    ({"winner": 1, "won_by": "discard", "total": 20}, 400, "'from' must be"),
    ({"winner": 1, "won_by": "self_draw", "total": 200}, 400, "'total' must be a whole number from 0 to 72"),
    ({"winner": 1, "won_by": "self_draw", "total": 9}, 400, "minimum"),
    ({"winner": 1, "won_by": "self_draw", "total": 20, "by": "a\nb"}, 400, "a name is one line"),
    ([1, 2], 400, "a proposal is a JSON object"),
])
def test_a_bad_proposal_by_total_is_refused_in_one_line(table: tuple[TestClient, Config], body: Any,
                                                        status: int, words: str) -> None:
    c, cfg = table
    r = c.post(g(cfg, "propose/total"), json=body)
    assert r.status_code == status and words in r.json()["error"] and "\n" not in r.json()["error"]
    assert c.get(g(cfg, "view")).json()["proposals"] == []


def test_proposals_and_their_bodies_are_bounded(table: tuple[TestClient, Config],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    c, cfg = table
    assert c.post(g(cfg, "propose/total"), content=b"{" + b" " * 5000 + b"}").status_code == 413
    body = {"winner": 1, "won_by": "self_draw", "total": 20}
    for _ in range(8):
        assert c.post(g(cfg, "propose/total"), json=body).status_code == 200
    assert c.post(g(cfg, "propose/total"), json=body).status_code == 429
    monkeypatch.setattr(appmod, "upload_limit", lambda: 1000)
    r = c.post(g(cfg, "propose/photo?winner=1&won_by=self_draw"), content=b"\xff" * 1001)
    assert r.status_code == 413


def _png_header(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))


@pytest.mark.parametrize("data", [b"GIF89a broken", b"", _png_header(10_000, 10_000)])
def test_a_hostile_photo_gets_the_scans_refusal(table: tuple[TestClient, Config], data: bytes) -> None:
    c, cfg = table
    with pytest.raises(ValueError) as exc:
        decode(data, "photo")
    r = c.post(g(cfg, "propose/photo?winner=1&won_by=self_draw"), content=data)
    assert r.status_code == 400 and r.json()["error"] == str(exc.value)


def test_a_hands_photo_is_shown_decoded_never_as_the_file(table: tuple[TestClient, Config],
                                                          tmp_path: Path) -> None:
    c, cfg = table
    secret = tmp_path / "notes.txt"
    secret.write_text("the host's private notes")
    with Ledger(cfg.db) as led:
        shown = led.record_hand("周五", HAND, photo=str(models_dir() / "sample.jpg"))
        hidden = led.record_hand("周五", {**HAND, "winner": 2}, photo=str(secret))
    v = c.get(g(cfg, "view")).json()
    by_event = {x["event"]: x for x in v["hands"]}
    assert by_event[shown.event]["photo"] == f"photo/{shown.event}"
    r = c.get(g(cfg, f"photo/{shown.event}"))
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg" and r.content[:2] == b"\xff\xd8"
    assert c.get(g(cfg, f"photo/{hidden.event}")).status_code == 404  # not an image: never sent


def test_zipai_serve_prints_the_link_its_qr_code_and_where_it_binds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    db, s = _ledger(tmp_path)
    served: list[Config] = []
    monkeypatch.setattr(servecli, "serve", lambda cfg, sock: served.append(cfg) or sock.close() or 0)
    assert servecli.main(["--db", str(db), "--port", "0"]) == 0
    out = capsys.readouterr().out
    cfg = served[0]
    assert f"/t/{cfg.guest_token}/" in out and f"/t/{cfg.host_token}/" in out
    assert "bound to 127.0.0.1 port " in out and "this machine only" in out
    assert "▀" in out or "█" in out  # the QR code
    assert out.index(cfg.guest_token) < out.index("▀") < out.index(cfg.host_token)  # the QR is the join link
    assert cfg.proposals is False and cfg.session.id == s.id


@pytest.mark.parametrize(("args", "words"), [
    (["--port", "70000"], "--port must be 0 to 65535"),
    (["--session", "nope"], "no session with id or name 'nope'"),
    (["--bind", "203.0.113.77"], "cannot listen on 203.0.113.77"),
])
def test_zipai_serve_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         args: list[str], words: str) -> None:
    db, _ = _ledger(tmp_path)
    assert servecli.main(["--db", str(db), "--port", "0", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_port_in_use_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, _ = _ledger(tmp_path)
    busy = servecli.listen("127.0.0.1", 0)
    try:
        port = str(busy.getsockname()[1])
        assert servecli.main(["--db", str(db), "--port", port]) == 2
    finally:
        busy.close()
    assert f"port {port} on 127.0.0.1 is in use" in capsys.readouterr().err


def test_a_missing_extra_names_serve() -> None:
    exc = ModuleNotFoundError("No module named 'starlette'", name="starlette")
    assert "pip install 'zipai-scorer[serve]'" in _missing(exc)


def test_zipai_serve_runs_until_ctrl_c_and_stopping_loses_nothing(tmp_path: Path) -> None:
    """The real command in its own process: the printed link answers, an open event stream
    does not hold up Ctrl-C, and the ledger is as it was (nothing of the server's is stored)."""
    import signal
    import subprocess
    import sys
    import urllib.request

    db, _ = _ledger(tmp_path)
    with Ledger(db) as led:
        led.record_hand("周五", HAND)
        before = led.export_json("周五")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.Popen([sys.executable, "-m", "zipai", "serve", "--db", str(db), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        link = ""
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("join link"):
                link = line.split()[-1]
            if line.startswith("Ctrl-C"):
                break
        with urllib.request.urlopen(link + "view", timeout=10) as r:
            assert json.loads(r.read())["session"]["hands"] == 1
        stream = urllib.request.urlopen(link + "events", timeout=10)
        assert stream.readline().startswith(b"id: ")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
        stream.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.stderr is not None and proc.stderr.read() == ""
    with Ledger(db, readonly=True) as led:
        assert led.export_json("周五") == before and led.integrity() == "ok"


def test_every_kind_of_history_line_and_a_settled_session(tmp_path: Path) -> None:
    """Guangxi: a double instant win, a drawn hand, an adjustment, then settled pairwise; each
    line has its title and payouts, the double its working, the settlement says it is settled."""
    from zipai.serve.app import Table

    instant_a = "x1 x1 x1 x3 x3 x3 x5 x5 x5 d4 d4 d4 d9 d9 d9 x2 x4 x6 x7 x8 x9".split()
    instant_b = "x10 x10 x10 d1 d1 d1 d3 d3 d3 d5 d5 d5 d8 d8 d8 x2 x4 x6 x7 x8".split()
    db = tmp_path / "ledger.db"
    with Ledger(db) as led:
        s = led.new_session("广西", "guangxi", list(PLAYERS))
        led.record_double_instant(s, [{"winner": 1, "won_by": "dealt", "hand": instant_a},
                                      {"winner": 2, "won_by": "dealt", "hand": instant_b}])
        led.record_draw(s, note="荒庄")
        led.adjust(s, reason="更正", deltas=[5, -5, 0])
        led.settle(s, mode="pairwise")
    table = Table(Config(db, s, new_token(), new_token()))
    try:
        v = table.view("zh_Hans", "guest")
    finally:
        table.close()
    double, draw, adjust = reversed(v["hands"])
    assert double["title"] == "第1手 · 双起手胡 · 丙" and double["groups"]
    assert double["working"][0] == "七组合计 27油" and "七组合计 21油" not in double["working"]
    assert draw["title"] == "第2手 · 流局" and [p["amount"] for p in draw["payouts"]] == [0, 0, 0]
    assert adjust["title"] == "第3手 · 调整：更正" and [p["amount"] for p in adjust["payouts"]] == [5, -5, 0]
    assert v["rounds"] == [] and v["session"]["locked"] is True
    assert v["settlement"]["title"] == "已结算 · 两两结算"
