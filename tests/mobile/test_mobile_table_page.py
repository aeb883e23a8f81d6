"""同桌看 on the ledger screen, by touch: a tap serves the session to the table and shows the
join link's QR code; 停止 stops serving. On a phone-sized and a tablet-sized window."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

try:
    import starlette  # noqa: F401
except ImportError:  # the [serve] extra: scripts/setup.sh --all installs it, so CI must have it
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("the [serve] extra is not installed", allow_module_level=True)

from test_mobile_touch import app_in, create_session, set_size
from test_mobile_ui import UI


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UI]:
    with app_in(tmp_path_factory.mktemp("table_page")) as ui:
        yield ui


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.parametrize("size", [(360, 780), (1280, 800)])
def test_the_ledger_screen_serves_the_table_and_shows_its_qr_code(ui: UI, size: tuple[int, int]) -> None:
    set_size(ui, size)
    create_session(ui, f"同桌-{size[0]}")
    f = ui.finger
    f.tap(f.button("同桌看"))
    ui.pump(3)
    qr = ui.app.table_qr
    assert qr.qr.texture is not None and qr.qr.texture.width > 100  # the QR code is drawn
    link = qr.link.text
    assert link == ui.app.table_page.link and "/t/" in link
    view = _get(link + "view")
    assert view["session"]["name"] == f"同桌-{size[0]}" and view["proposals_open"] is False
    ui.app.state.record_draw()  # the app records; the page sees it
    assert _get(link + "view")["session"]["hands"] == 1
    f.tap(f.button("停止"))
    ui.pump(2)
    assert ui.app.table_page.server is None
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(link + "view", timeout=5)
