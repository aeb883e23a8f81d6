"""The table page's web application (Starlette): one session of one ledger, two secret links.

Every URL starts ``/t/TOKEN/``. The guest token shows the page; the host token shows the same
page with the proposals' accept and reject buttons, and only it can record anything. A wrong
or missing token gets 404, later than the one before once a client has guessed wrong a few
times. No URL names a file: the page's assets are fixed names read from the package once, and
a hand's photo is asked for by its event number and read from the path the ledger stores.

The ledger is polled every ``poll_s`` seconds through ``Ledger.state`` (one indexed query
while nothing changed); a change, from this server or any other writer of the file (the app,
``zipai hand add``, an undo), wakes every open event stream, which sends the page's whole
view again, so a phone that missed one message still ends up right.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from zipai.scorer import Ledger, LedgerError, SessionInfo, SessionState, Settlement

from .proposals import Photo, Proposal, ProposalError, Proposals, jpeg, keep_photo, preview, read_photo
from .view import groups_view, payout_lines, photo_file, pick_lang, session_view
from .words import word

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

POLL_S = 0.25
KEEPALIVE_S = 15.0
MAX_JSON_BYTES = 4096  # a proposal by total is a few fields
PHOTO_SIDE = 1280  # the recorded hand's photo as the page shows it
ASSETS = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8",
          "": "text/html; charset=utf-8"}
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
       "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-frame-options", b"DENY"),
           (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
           (b"cache-control", b"no-store"), (b"cross-origin-resource-policy", b"same-origin")]


def upload_limit() -> int:
    """The most bytes a photo proposal may have: the scan's own file budget."""
    from zipai.vision.decode import MAX_FILE_BYTES

    return MAX_FILE_BYTES


@dataclass
class Config:
    """What ``zipai serve`` decided: the ledger, the session, the two tokens, whether guests may propose."""

    db: Path
    session: SessionInfo
    guest_token: str
    host_token: str
    proposals: bool = False
    poll_s: float = POLL_S


def new_token() -> str:
    """A link's secret: 24 random bytes (192 bits), URL-safe."""
    return secrets.token_urlsafe(24)


class Throttle:
    """Slows a client that keeps guessing tokens: the first ``free`` misses in ``window`` seconds
    answer at once, each later one waits ``step`` seconds more, up to ``most``. Remembers at most
    ``clients`` addresses (the oldest forgotten first), so a flood cannot grow it."""

    def __init__(self, free: int = 3, step: float = 0.5, most: float = 5.0, window: float = 600.0,
                 clients: int = 4096) -> None:
        self.free, self.step, self.most, self.window, self.clients = free, step, most, window, clients
        self._misses: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def miss(self, client: str, now: float | None = None) -> float:
        """Count a wrong token from ``client``; the seconds its answer should wait."""
        now = time.monotonic() if now is None else now
        with self._lock:
            n, last = self._misses.pop(client, (0, now))
            n = 1 if now - last > self.window else n + 1
            self._misses[client] = (n, now)
            while len(self._misses) > self.clients:
                self._misses.popitem(last=False)
        return min(self.most, self.step * max(0, n - self.free))


class Hub:
    """Wakes every open event stream when the view changes (``version`` counts the changes)."""

    def __init__(self) -> None:
        self.version = 0
        self.closing = False
        self._changed = asyncio.Event()

    def bump(self) -> None:
        self.version += 1
        old, self._changed = self._changed, asyncio.Event()
        old.set()

    async def wait(self, seen: int, timeout: float) -> None:
        if self.version != seen or self.closing:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)


class Table:
    """The served session: its ledger, the view cache, the proposals and the hub."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        # without proposals nothing is ever written: the ledger is opened read-only
        self.ledger = Ledger(cfg.db, readonly=not cfg.proposals)
        self.session = cfg.session
        self.proposals = Proposals()
        self.throttle = Throttle()
        self.hub = Hub()
        self.problem = ""  # the ledger's refusal while it cannot be read (busy, damaged)
        self._state: SessionState | None = None
        self._views: dict[tuple[int, str], dict[str, Any]] = {}
        self._photos: OrderedDict[tuple[int, str], bytes] = OrderedDict()
        self._scan_lock = threading.Lock()  # one scan at a time: the detector is shared
        self._building = threading.Lock()  # the view cache
        self._kept = threading.Lock()  # the photo cache
        self.uploads = threading.BoundedSemaphore(2)  # photos being received at once
        self.assets = {name: _asset(name or "index.html") for name in ASSETS}

    def role(self, token: str) -> str | None:
        """``host``, ``guest`` or None, compared in constant time."""
        host = secrets.compare_digest(token.encode(), self.cfg.host_token.encode())
        guest = secrets.compare_digest(token.encode(), self.cfg.guest_token.encode())
        return "host" if host else "guest" if guest else None

    # ------------------------------------------------------------ reading the ledger
    def poll(self) -> bool:
        """Whether the session changed since the last poll (any writer, any process)."""
        try:
            st = self.ledger.state(self.session)
        except LedgerError as exc:
            changed = self.problem != str(exc)
            self.problem = str(exc)
            return changed
        changed = st is not self._state or bool(self.problem)
        self._state, self.problem = st, ""
        return changed

    def state(self) -> SessionState:
        if self._state is None:
            self._state = self.ledger.state(self.session)
        return self._state

    def settlement(self, st: SessionState) -> Settlement:
        mode = "minimal"
        if st.locked:  # the mode the host settled with
            for ev in reversed(self.ledger.export_json(self.session)["events"]):
                if ev["kind"] == "settle":
                    mode = str(ev["data"].get("mode", "minimal"))
                    break
        return self.ledger.settlement(self.session, mode if mode in ("minimal", "pairwise") else "minimal")

    def view(self, lang: str, role: str) -> dict[str, Any]:
        """The page's whole view in ``lang`` (cached per hub version), with the proposals."""
        key = (self.hub.version, lang)
        with self._building:  # eight phones woken at once: one builds, the others read the cache
            base = self._views.get(key)
            if base is None:
                st = self.state()
                base = session_view(st, self.settlement(st), lang, self.cfg.db)
                base["proposals"] = [self.proposal_view(p, st, lang) for p in self.proposals.pending()]
                self._views = {key: base, **{k: v for k, v in self._views.items() if k[0] == key[0]}}
        return {**base, "role": role, "proposals_open": self.cfg.proposals, "problem": self.problem}

    def proposal_view(self, p: Proposal, st: SessionState, lang: str) -> dict[str, Any]:
        from zipai.mobile.explain import explain
        from zipai.mobile.i18n import Translator

        t = Translator(lang)
        s = self.session
        raw = p.raw
        how = t(raw["won_by"]) + (f" ← {s.players[raw['from']]}" if "from" in raw else "")
        d: dict[str, Any] = {"id": p.id, "kind": p.kind,
                             "by": word(lang, "proposal_by", who=p.by or word(lang, "a_guest")),
                             "title": f"{s.players[raw['winner']]} {how}", "groups": [], "working": [],
                             "payouts": [], "score": None, "error": "",
                             "photo": f"proposal/{p.id}" if p.photo else None,
                             "doubts": word(lang, "doubts", n=p.photo.doubts) if p.photo and p.photo.doubts
                             else ""}
        if "total" in raw:
            d["title"] += f" · {t('by_total')} {raw['total']}{t.script(s.variant.unit)}"
        try:
            res = preview(raw, s, st.dealer)
        except ProposalError as exc:
            d["error"] = word(lang, "no_longer", msg=str(exc))
            return d
        if not res.winning:
            d["error"] = word(lang, "no_longer", msg=res.reason.message if res.reason else "")
            return d
        d.update(score=res.score, groups=groups_view(res.groups, t),
                 working=explain(res, s.preset, s.players, t),
                 payouts=payout_lines(res.payouts, s.players))
        return d

    # ------------------------------------------------------------ photos
    def hand_photo(self, event: int) -> bytes | None:
        """A recorded hand's photo as read, boxes drawn (scanned once, kept for the last few)."""
        st = self.state()
        e = next((e for e in st.history if e.event == event), None)
        path = photo_file(e.photo if e else None, self.cfg.db)
        if e is None or path is None:
            return None
        key = (event, str(path))
        with self._kept:
            if key in self._photos:
                return self._photos[key]
        from zipai.vision.decode import load
        from zipai.vision.scan import overlay, scan_decoded

        base = {"rules": self.session.preset, "players": self.session.n, "dealer": e.dealer}
        raw = e.input if isinstance(e.input, dict) else {}
        base.update({k: raw[k] for k in ("winner", "won_by", "from") if k in raw})
        try:
            img = load(path)  # the scan's decoder: an image, or nothing is shown
        except ValueError:
            return None
        with self._scan_lock:
            try:
                pic = overlay(img.image, scan_decoded(img, base=base))
            except ValueError:
                pic = img.image
        data = jpeg(pic, 80, PHOTO_SIDE)
        self._keep(key, data)
        return data

    def _keep(self, key: tuple[int, str], data: bytes) -> None:
        with self._kept:
            self._photos[key] = data
            while len(self._photos) > 16:
                self._photos.popitem(last=False)

    def propose_photo(self, data: bytes, fields: dict[str, Any]) -> Proposal:
        st = self.state()

        def read(raw: bytes, base: dict[str, Any]) -> tuple[dict[str, Any], Photo]:
            with self._scan_lock:
                return read_photo(raw, base)
        return self.proposals.by_photo(data, fields, self.session, st.dealer, read)

    def accept(self, pid: str) -> int:
        """Record a proposal (the host's word); the new hand's number."""
        p = self.proposals.take(pid)
        if p is None:
            raise ProposalError("no such proposal (already answered?)", status=404, code="gone")
        path = None
        try:
            if p.photo is not None:
                path = keep_photo(p.photo, self.cfg.db.resolve().parent / "photos", self.session.id, p.id)
            e = self.ledger.record_hand(self.session, p.raw, photo=str(path) if path else None)
        except LedgerError as exc:
            if path is not None:
                path.unlink(missing_ok=True)
            raise ProposalError(str(exc), status=409, code=exc.code) from None
        if path is not None and p.photo is not None:  # the photo as read is the one just shown
            self._keep((e.event, str(path)), p.photo.overlay)
        return e.no

    def stop_streams(self) -> None:
        """End every open event stream (the server is stopping; the pages will reconnect)."""
        self.hub.closing = True
        self.hub.bump()

    def close(self) -> None:
        self.ledger.close()


def _asset(name: str) -> bytes:
    return resources.files("zipai.serve").joinpath("static", name).read_bytes()


async def slow_down(seconds: float) -> None:
    """The throttle's wait before a wrong token's 404."""
    await asyncio.sleep(seconds)


class Guard:
    """ASGI middleware: the token check (404 and the throttle) and the security headers on
    every answer, the 404 included."""

    def __init__(self, app: Any, table: Table) -> None:
        self.app = app
        self.table = table

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                msg["headers"] = [*msg.get("headers", []), *HEADERS]
            await send(msg)

        parts = str(scope.get("path", "")).split("/")
        guess = len(parts) > 3 and parts[1] == "t"  # a path without a token (/favicon.ico) guesses none
        role = self.table.role(parts[2]) if guess else None
        if role is None:
            client = (scope.get("client") or ("?", 0))[0]
            delay = self.table.throttle.miss(str(client)) if guess else 0.0
            if delay:
                await slow_down(delay)
            await Response("Not Found", status_code=404, media_type="text/plain")(scope, receive, secured)
            return
        scope.setdefault("state", {})["role"] = role
        await self.app(scope, receive, secured)


def _refusal(exc: ProposalError | ValueError, status: int = 400) -> JSONResponse:
    code = getattr(exc, "code", "bad_photo")
    return JSONResponse({"error": str(exc), "code": code}, status_code=getattr(exc, "status", status))


def make_app(cfg: Config) -> Guard:
    """The ASGI application for one served session."""
    table = Table(cfg)

    def role(request: Request) -> str:
        return str(request.scope["state"]["role"])

    async def asset(request: Request) -> Response:
        name = request.url.path.rsplit("/", 1)[-1]
        return Response(table.assets[name], media_type=ASSETS[name])

    async def fresh() -> None:
        """The ledger as it is now, not as the last poll saw it (a one-off read or a proposal)."""
        if await anyio.to_thread.run_sync(table.poll):
            table.hub.bump()

    async def view(request: Request) -> Response:
        lang = pick_lang(request.query_params.get("lang"))
        await fresh()
        return JSONResponse(await anyio.to_thread.run_sync(table.view, lang, role(request)))

    async def events(request: Request) -> Response:
        lang = pick_lang(request.query_params.get("lang"))
        who = role(request)

        async def stream() -> AsyncIterator[str]:
            seen = -1
            while not table.hub.closing:
                if table.hub.version != seen:
                    seen = table.hub.version
                    body = await anyio.to_thread.run_sync(table.view, lang, who)
                    yield f"id: {seen}\nevent: view\ndata: {json.dumps(body, ensure_ascii=False)}\n\n"
                else:
                    yield ": still here\n\n"
                await table.hub.wait(seen, KEEPALIVE_S)
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    async def hand_photo(request: Request) -> Response:
        data = await anyio.to_thread.run_sync(table.hand_photo, int(request.path_params["event"]))
        if data is None:
            return Response("Not Found", status_code=404, media_type="text/plain")
        return Response(data, media_type="image/jpeg")

    async def proposal_photo(request: Request) -> Response:
        p = table.proposals.get(str(request.path_params["pid"]))
        if p is None or p.photo is None:
            return Response("Not Found", status_code=404, media_type="text/plain")
        return Response(p.photo.overlay, media_type="image/jpeg")

    async def closed() -> JSONResponse | None:
        if not cfg.proposals:
            return JSONResponse({"error": "the host has not opened proposals", "code": "closed"},
                                status_code=403)
        await fresh()
        if table.state().locked:
            return JSONResponse({"error": "the session is settled: the host reopens it first",
                                 "code": "locked"}, status_code=409)
        return None

    async def propose_total(request: Request) -> Response:
        if (refused := await closed()) is not None:
            return refused
        try:
            body = await _read(request, MAX_JSON_BYTES)
            obj = json.loads(body)
            if not isinstance(obj, dict):
                raise ProposalError("a proposal is a JSON object")
            p = table.proposals.by_total(obj, table.session, table.state().dealer)
        except json.JSONDecodeError:
            return _refusal(ProposalError("a proposal is a JSON object"))
        except ProposalError as exc:
            return _refusal(exc)
        table.hub.bump()
        return JSONResponse({"id": p.id})

    async def propose_photo(request: Request) -> Response:
        if (refused := await closed()) is not None:
            return refused
        if not table.uploads.acquire(blocking=False):
            return _refusal(ProposalError("two photos are being read; try again in a moment",
                                          status=503, code="busy"))
        try:
            data = await _read(request, upload_limit())
            fields = dict(request.query_params)
            p = await anyio.to_thread.run_sync(table.propose_photo, data, fields)
        except ProposalError as exc:
            return _refusal(exc)
        except ValueError as exc:  # the scan's refusal (ImageError): not a photo, too large, broken
            return _refusal(exc)
        finally:
            table.uploads.release()
        table.hub.bump()
        return JSONResponse({"id": p.id})

    async def answer(request: Request) -> Response:
        pid, verb = str(request.path_params["pid"]), str(request.path_params["verb"])
        if role(request) != "host" or verb not in ("accept", "reject"):
            return Response("Not Found", status_code=404, media_type="text/plain")
        try:
            if verb == "accept":
                no = await anyio.to_thread.run_sync(table.accept, pid)
                out: dict[str, Any] = {"recorded": no}
            elif table.proposals.take(pid) is None:
                raise ProposalError("no such proposal (already answered?)", status=404, code="gone")
            else:
                out = {"rejected": pid}
        except ProposalError as exc:
            table.hub.bump()
            return _refusal(exc)
        await anyio.to_thread.run_sync(table.poll)
        table.hub.bump()
        return JSONResponse(out)

    async def watch() -> None:
        while not table.hub.closing:
            if await anyio.to_thread.run_sync(table.poll):
                table.hub.bump()
            await asyncio.sleep(cfg.poll_s)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        table.poll()
        task = asyncio.create_task(watch())
        try:
            yield
        finally:
            table.stop_streams()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            table.close()

    routes = [
        Route("/t/{token}/", asset),
        Route("/t/{token}/app.js", asset),
        Route("/t/{token}/app.css", asset),
        Route("/t/{token}/view", view),
        Route("/t/{token}/events", events),
        Route("/t/{token}/photo/{event:int}", hand_photo),
        Route("/t/{token}/proposal/{pid}", proposal_photo),
        Route("/t/{token}/propose/total", propose_total, methods=["POST"]),
        Route("/t/{token}/propose/photo", propose_photo, methods=["POST"]),
        Route("/t/{token}/proposal/{pid}/{verb:str}", answer, methods=["POST"]),
    ]
    return Guard(Starlette(routes=routes, lifespan=lifespan), table)


async def _read(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise ProposalError(f"the upload is larger than {limit // (1024 * 1024) or limit} "
                            f"{'MB' if limit >= 1024 * 1024 else 'bytes'}", status=413, code="too_large")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ProposalError("the upload is too large", status=413, code="too_large")
            chunks.append(chunk)
    except ClientDisconnect:
        raise ProposalError("the upload was cut off", code="cut_off") from None
    return b"".join(chunks)
