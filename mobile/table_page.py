"""同桌看 on the ledger screen: the table page (``zipai serve``) for the session on this device,
its QR code to scan at the table, and a button to stop it.

The server runs in this process (``zipai.serve``, the [serve] extra, imported only on the tap)
on this device's local network address, read-only: the app stays the only writer, and guests
only watch. Where the extra is missing (the Android build has no uvicorn yet, and no APK has
been built), the tap says which extra to install and nothing else changes.
"""

from __future__ import annotations

import io
from typing import Any

from kivy.core.image import Image as CoreImage
from kivy.metrics import dp, sp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.image import Image
from kivy.uix.modalview import ModalView

from .widgets import Txt


class TablePage:
    """The served session of this app: at most one, started on the first tap and kept until
    stopped or the app ends. No Kivy here."""

    def __init__(self) -> None:
        self.server: Any = None
        self.link = ""
        self.session_id: int | None = None

    def start(self, db: Any, session: Any) -> str:
        """Serve ``session`` (again if another one was served) and return its join link."""
        if self.server is not None and self.session_id == session.id:
            return self.link
        self.stop()
        from zipai.serve.app import Config, new_token
        from zipai.serve.cli import Background, lan_address

        cfg = Config(db, session, new_token(), new_token(), proposals=False)
        server = Background(cfg, bind=lan_address() or "127.0.0.1")
        server.__enter__()
        self.server, self.session_id = server, session.id
        self.link = server.url(cfg.guest_token)
        return self.link

    @property
    def local_only(self) -> bool:
        return self.server is not None and self.server.host == "127.0.0.1"

    def qr_png(self) -> bytes:
        import segno

        buf = io.BytesIO()
        segno.make(self.link, error="m").save(buf, kind="png", scale=8, border=2)
        return buf.getvalue()

    def stop(self) -> None:
        if self.server is not None:
            self.server.__exit__(None, None, None)
        self.server, self.session_id, self.link = None, None, ""


class TableQR(ModalView):
    """The join link's QR code, the link itself, 停止 and 关闭."""

    def __init__(self, page: TablePage, t: Any, on_stop: Any, **kw: Any) -> None:
        kw.setdefault("size_hint", (0.92, None))
        super().__init__(**kw)
        box = BoxLayout(orientation="vertical", padding=dp(12), spacing=dp(8), size_hint_y=None)
        box.bind(minimum_height=box.setter("height"))
        box.bind(height=lambda _b, h: setattr(self, "height", h))
        box.add_widget(Txt(text=t("scan_to_follow"), font_size=sp(17), color=(1, 1, 1, 1)))
        tex = CoreImage(io.BytesIO(page.qr_png()), ext="png").texture
        tex.mag_filter = "nearest"
        self.qr = Image(texture=tex, size_hint_y=None, height=dp(240), fit_mode="contain")
        box.add_widget(self.qr)
        self.link = Txt(text=page.link, font_size=sp(13), color=(0.9, 0.9, 0.9, 1))
        box.add_widget(self.link)
        if page.local_only:
            box.add_widget(Txt(text=t("only_here"), font_size=sp(14), color=(1, 0.8, 0.4, 1)))
        row = BoxLayout(size_hint_y=None, height=dp(52), spacing=dp(8))
        actions = (("table_stop", (0.70, 0.18, 0.14, 1), on_stop), ("table_close", (0.4, 0.4, 0.38, 1), None))
        for key, colour, act in actions:
            b = Button(text=t(key), background_normal="", background_down="", background_color=colour,
                       font_size=sp(17))
            b.bind(on_release=lambda _b, act=act: (self.dismiss(animation=False), act and act()))
            row.add_widget(b)
        box.add_widget(row)
        self.add_widget(box)


def hook(screen: Any, app: Any) -> None:
    """Add the 同桌看 button beside the ledger screen's other actions (the smallest change to a
    screen: nothing else on it moves or changes)."""
    grid = getattr(screen.ids.get("capture_btn"), "parent", None)
    if grid is None:
        return
    page = TablePage()
    app.table_page = page
    t = app.state.t
    btn = Button(text=t("table_page"), background_normal="", background_down="",
                 background_color=(0.16, 0.42, 0.31, 1), color=(1, 1, 1, 1), font_size=sp(17),
                 size_hint_y=None, height=dp(52))

    def show(*_: Any) -> None:
        st = app.state
        try:
            page.start(st.ledger.path, st.need_session())
        except ImportError:
            app.notify(st.t("needs_extra"))
            return
        except (ValueError, RuntimeError) as exc:
            app.notify(st.t("error", msg=str(exc)))
            return
        app.table_qr = TableQR(page, st.t, page.stop)
        app.table_qr.open(animation=False)

    btn.bind(on_release=show)
    app.bind(lang=lambda *_: setattr(btn, "text", app.state.t("table_page")))
    app.bind(on_stop=lambda *_: page.stop())
    grid.add_widget(btn)
