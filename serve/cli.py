"""``zipai serve``: print the join link and its QR code, then serve the session until Ctrl-C.

It binds where ``--bind`` says and nowhere else. The default, 127.0.0.1, reaches only this
machine (safe on a café's wifi); ``--bind lan`` takes this machine's address on the local
network, so the phones at the table can open the link; any other address is taken as given.
"""

from __future__ import annotations

import argparse
import errno
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from zipai.scorer import Ledger, LedgerError, SessionInfo

from .app import Config, make_app, new_token

DEFAULT_PORT = 8765


def lan_address() -> str | None:
    """This machine's address on the local network: the one its route to a private address
    leaves from (a UDP socket sends nothing on connect). None with no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            addr = str(s.getsockname()[0])
        except OSError:
            return None
    return None if addr.startswith("0.") else addr


def listen(bind: str, port: int) -> socket.socket:
    """A listening socket, or a ValueError naming why not (in use, no such address)."""
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bind, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(f"port {port} on {bind} is in use; pick another with --port") from None
        raise ValueError(f"cannot listen on {bind} port {port}: {exc.strerror or exc}") from None
    except (OverflowError, TypeError) as exc:
        sock.close()
        raise ValueError(f"cannot listen on {bind!r} port {port}: {exc}") from None
    return sock


def url(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/t/{token}/"


def qr_text(link: str, out: TextIO) -> None:
    """The link's QR code in the terminal: half blocks where the terminal can print them."""
    import segno

    qr = segno.make(link, error="m")
    enc = (getattr(out, "encoding", None) or "ascii").lower()
    qr.terminal(out=out, compact=enc.startswith("utf"), border=2)


def banner(s: SessionInfo, host: str, bind: str, port: int, guest: str, hostkey: str, proposals: bool,
           out: TextIO) -> str:
    """What ``zipai serve`` prints before it serves: the join link, its QR code, where it binds,
    and the host's own link (never in the QR: it records hands)."""
    link = url(host, port, guest)
    print(f"zipai serve: session {s.id} {s.name!r} ({s.preset}, {', '.join(s.players)})", file=out)
    local = bind in ("127.0.0.1", "::1")
    print(f"bound to {bind} port {port}"
          + (" (this machine only; --bind lan lets the phones at the table in)" if local else ""), file=out)
    print(f"join link (everyone at the table): {link}", file=out)
    qr_text(link, out)
    why = "it accepts or rejects the guests' proposals" if proposals else "the same page, for you"
    print(f"host link (yours alone: {why}): {url(host, port, hostkey)}", file=out)
    print("guests may propose hands; only the host link records them" if proposals
          else "guests can only watch (--proposals lets them propose hands for you to accept)", file=out)
    print("Ctrl-C stops serving; the ledger keeps everything.", file=out)
    out.flush()
    return link


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="zipai serve", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--session", help="session id or name (default: the current session)")
    ap.add_argument("--db", help="ledger file (default: $ZIPAI_DB or ~/.local/share/zipai/ledger.db)")
    ap.add_argument("--bind", default="127.0.0.1",
                    help="address to listen on: 127.0.0.1 (default, this machine only), "
                         "'lan' (this machine's local network address) or any address")
    ap.add_argument("--port", type=int, default=DEFAULT_PORT,
                    help=f"port (default {DEFAULT_PORT}; 0: any free)")
    ap.add_argument("--proposals", action="store_true",
                    help="let guests propose hands (by total or photo) for the host to accept")
    ap.add_argument("--screenshots", metavar="DIR",
                    help="photograph the page of a demonstration evening at phone size into DIR, then stop")
    a = ap.parse_args(argv)
    if a.screenshots:
        from .shots import main as shots

        return shots(a.screenshots)
    if not 0 <= a.port <= 65535:
        print(f"zipai serve: --port must be 0 to 65535, not {a.port}", file=sys.stderr)
        return 2
    bind = a.bind
    if bind == "lan":
        found = lan_address()
        if found is None:
            print("zipai serve: no local network found for --bind lan; connect to the table's wifi "
                  "or give an address", file=sys.stderr)
            return 2
        bind = found
    try:
        with Ledger(a.db, readonly=True) as led:
            s = led.session(a.session)
            led.state(s)  # a damaged session is refused here, not on the first phone
    except LedgerError as exc:
        print(f"zipai serve: {exc}", file=sys.stderr)
        return 2
    try:
        sock = listen(bind, a.port)
    except ValueError as exc:
        print(f"zipai serve: {exc}", file=sys.stderr)
        return 2
    port = int(sock.getsockname()[1])
    shown = (lan_address() or "127.0.0.1") if bind in ("0.0.0.0", "::") else bind
    cfg = Config(Path(led.path).resolve(), s, new_token(), new_token(), a.proposals)
    banner(s, shown, bind, port, cfg.guest_token, cfg.host_token, a.proposals, sys.stdout)
    return serve(cfg, sock)


class Background:
    """The server in a thread of this process, for the tests and ``zipai bench serve``:
    ``with Background(cfg) as b: b.url(token)``; leaving the block stops it."""

    def __init__(self, cfg: Config, bind: str = "127.0.0.1") -> None:
        self.cfg = cfg
        self.sock = listen(bind, 0)
        self.port = int(self.sock.getsockname()[1])
        self.host = bind
        self.server = server(cfg)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def url(self, token: str) -> str:
        return url(self.host, self.port, token)

    def __enter__(self) -> Background:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the table page's server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def server(cfg: Config) -> Any:
    """A uvicorn server of the table page. Access logs stay off: every URL carries a token. On
    stopping it first ends the open event streams, which would otherwise hold it up."""
    import uvicorn

    app = make_app(cfg)

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            app.table.stop_streams()
            await super().shutdown(sockets)

    # no proxy headers: the throttle counts the address that connected, which no header can change
    return Server(uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2,
                                 lifespan="on", proxy_headers=False, server_header=False))


def serve(cfg: Config, sock: socket.socket) -> int:
    """Run the server on ``sock`` until Ctrl-C, its way to stop (exit 0: nothing was left undone)."""
    try:
        server(cfg).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the signal again once it has shut down
        pass
    finally:
        sock.close()
    return 0
