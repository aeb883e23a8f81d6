"""``zipai serve --screenshots DIR``: the table page at a phone's size (360x780), as the README
shows it. A demonstration evening in a temporary ledger (a hand read from the shipped sample
photo, hands by total, a 冲百福 round closed, a guest's proposal waiting), served on
127.0.0.1 and photographed by Debian's headless Chromium through Playwright (the [dev] extra).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from zipai.scorer import Ledger

from .app import Config, new_token
from .cli import Background

if TYPE_CHECKING:  # playwright (the [dev] extra) is imported only when the shots are taken
    from playwright.sync_api import ViewportSize

PHONE: ViewportSize = {"width": 360, "height": 780}
SAMPLE_HAND = {"winner": 1, "won_by": "self_draw",
               "groups": [{"cards": ["x4", "x5", "x6"], "state": "open"},
                          {"cards": ["x9", "x7", "x8"], "state": "open"}],
               "hand": ["x4", "x4", "x4", "d1", "d2", "d3", "d1", "d2", "d3", "x8", "x9", "x10", "x5", "x6",
                        "x7"]}
TOTALS = [{"winner": 0, "won_by": "discard", "from": 2, "total": 24},
          {"winner": 2, "won_by": "stock", "total": 30},
          {"winner": 2, "won_by": "self_draw", "total": 39}]


def evening(db: Path) -> Config:
    """The demonstration session; the photo hand last, so it opens the history."""
    from zipai.vision.detector import models_dir

    photos = db.parent / "photos"
    photos.mkdir()
    photo = photos / "sample.jpg"
    shutil.copy(models_dir() / "sample.jpg", photo)
    with Ledger(db) as led:
        s = led.new_session("周五晚", "hunan", ["老张", "阿梅", "小李"], stake="0.5")
        for raw in TOTALS:
            led.record_hand(s, raw)
        led.record_hand(s, SAMPLE_HAND, photo=str(photo))
    return Config(db, s, new_token(), new_token(), proposals=True)


def take(out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise ValueError("no chromium: bash scripts/install-system-packages.sh installs it")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="zipai-serve-shots-") as tmp:
        cfg = evening(Path(tmp) / "ledger.db")
        with Background(cfg) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
            guest = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
            guest.goto(server.url(cfg.guest_token))
            guest.locator("article.hand img.photo").first.wait_for()
            guest.wait_for_function("[...document.images].every((i) => i.complete && i.naturalWidth)")
            written.append(out / "01-totals.png")
            guest.screenshot(path=str(written[-1]))
            guest.locator("#hands").scroll_into_view_if_needed()
            guest.evaluate("document.querySelector('#hands').scrollIntoView()")
            written.append(out / "02-hand.png")
            guest.screenshot(path=str(written[-1]))
            guest.evaluate("window.scrollTo(0, 0)")
            guest.locator("#propose summary").click()
            form = guest.locator("#propose form")
            form.locator('select[name="winner"]').select_option(label="阿梅")
            form.locator('select[name="won_by"]').select_option("discard")
            form.locator('select[name="from"]').select_option(label="老张")
            form.locator('input[name="total"]').fill("21")
            form.locator('input[name="by"]').fill("小李")
            form.locator('button[type="submit"]').click()
            guest.locator("#propose-note.ok").wait_for()
            host = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
            host.goto(server.url(cfg.host_token))
            host.locator("[data-proposal]").wait_for()
            host.evaluate("document.querySelector('#proposals').scrollIntoView()")
            written.append(out / "03-host-proposal.png")
            host.screenshot(path=str(written[-1]))
            browser.close()
    return written


def main(out: str) -> int:
    import sys

    try:
        paths = take(Path(out))
    except ImportError:
        print("zipai serve --screenshots: needs playwright (pip install 'zipai-scorer[dev]')",
              file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"zipai serve --screenshots: {exc}", file=sys.stderr)
        return 2
    print(json.dumps([str(p) for p in paths]))
    return 0
