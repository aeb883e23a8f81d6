"""``zipai bench serve``: phones holding the table page open while another process records.

A fresh ledger and session in a temporary folder; the server on 127.0.0.1 in this process
(read-only, as ``zipai serve`` without ``--proposals``); ``--clients`` event streams, each on its
own connection as a phone's browser holds one; a separate Python process writing the ledger
(``--writes`` hands, every fifth write an undo, ``--gap`` seconds apart), which prints the
moment each write committed. For every write and every client: the delay from the commit to
the view that shows it, and whether that view came at all (a write is missed by a client that
never got a view ending at that write's event). Exit 1 if any update took over a second or
was missed."""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from zipai.scorer import Ledger

from .app import Config, new_token
from .cli import Background

HAND = {"winner": 1, "won_by": "stock", "total": 18}
WRITER = """
import json, sys, time
from zipai.scorer import Ledger
path, name, n, gap = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
hand = json.loads(sys.argv[5])
led = Ledger(path)
for i in range(n):
    time.sleep(gap)
    if i % 5 == 4:
        led.undo_last(name)
    else:
        led.record_hand(name, hand)
    print(json.dumps({"event": led.state(name).last_event, "t": time.time()}), flush=True)
"""


class Phone(threading.Thread):
    """One event stream, read as a browser reads it; every view's arrival time and last event."""

    def __init__(self, link: str) -> None:
        super().__init__(daemon=True)
        u = urlsplit(link)
        self.conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=30)
        self.path = u.path + "events"
        self.views: list[tuple[float, int]] = []
        self.ready = threading.Event()
        self.error = ""

    def run(self) -> None:
        try:
            self.conn.request("GET", self.path, headers={"Accept": "text/event-stream"})
            res = self.conn.getresponse()
            if res.status != 200:
                self.error = f"HTTP {res.status}"
                return
            while True:
                line = res.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    view = json.loads(line[6:])
                    self.views.append((time.time(), int(view["stamp"]["last_event"])))
                    self.ready.set()
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if not self.error:
                self.error = str(exc)
        finally:
            self.ready.set()

    def close(self) -> None:
        """Hang up, as a phone leaving the table does (the reading thread then ends)."""
        self.error = self.error or "closed"
        if self.conn.sock is not None:
            with contextlib.suppress(OSError):
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.join(5)
        self.conn.close()


def measure(clients: int, writes: int, gap: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zipai-bench-serve-") as tmp:
        db = Path(tmp) / "ledger.db"
        with Ledger(db) as led:
            s = led.new_session("bench", "hunan", ["甲", "乙", "丙"])
        cfg = Config(db, s, new_token(), new_token())
        with Background(cfg) as server:
            phones = [Phone(server.url(cfg.guest_token)) for _ in range(clients)]
            for p in phones:
                p.start()
            for p in phones:
                p.ready.wait(10)
            proc = subprocess.run([sys.executable, "-c", WRITER, str(db), s.name, str(writes), str(gap),
                                   json.dumps(HAND)], capture_output=True, text=True,
                                  timeout=60 + writes * gap, check=True)
            done = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
            time.sleep(1.5)  # the last write's views
            for p in phones:
                p.close()
    delays: list[float] = []
    missed = 0
    for w in done:
        for p in phones:
            seen = [t for t, last in p.views if last == w["event"]]
            if seen:
                delays.append(seen[0] - w["t"])
            else:
                missed += 1
    errors = [p.error for p in phones if p.error not in ("", "closed")]
    return {"clients": clients, "writes": len(done), "gap_s": gap, "updates": len(done) * clients,
            "delivered": len(delays), "missed": missed, "errors": errors,
            "p50_ms": 1000 * statistics.median(delays) if delays else None,
            "p95_ms": 1000 * statistics.quantiles(delays, n=20)[-1] if len(delays) > 1 else None,
            "max_ms": 1000 * max(delays) if delays else None,
            "over_1s": sum(d > 1.0 for d in delays)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="zipai bench serve", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=8, help="phones holding the page open (default 8)")
    ap.add_argument("--writes", type=int, default=30, help="writes by the other process (default 30)")
    ap.add_argument("--gap", type=float, default=0.4, help="seconds between writes (default 0.4)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args(argv)
    if not (1 <= a.clients <= 64 and 1 <= a.writes <= 1000 and 0.05 <= a.gap <= 10):
        print("zipai bench serve: --clients 1-64, --writes 1-1000, --gap 0.05-10 s", file=sys.stderr)
        return 2
    r = measure(a.clients, a.writes, a.gap)
    if a.json:
        print(json.dumps(r))
    else:
        print(f"{r['clients']} phones on one session (127.0.0.1), {r['writes']} writes by another process "
              f"{r['gap_s']:g} s apart (every fifth an undo)")
        if r["delivered"]:
            print(f"updates delivered: {r['delivered']} of {r['updates']}, missed {r['missed']}; "
                  f"commit to phone: median {r['p50_ms']:.0f} ms, 95th percentile {r['p95_ms']:.0f} ms, "
                  f"worst {r['max_ms']:.0f} ms; over 1 s: {r['over_1s']}")
        for e in r["errors"]:
            print(f"a phone's stream failed: {e}")
    ok = r["missed"] == 0 and r["over_1s"] == 0 and not r["errors"] and r["delivered"] > 0
    print("every update within 1 s, none missed" if ok else "NOT every update arrived within 1 s")
    return 0 if ok else 1
