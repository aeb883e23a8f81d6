"""The table page in a real browser: Debian's Chromium, headless, driven by Playwright, at a
phone's size (360x780). One server and one browser for the whole module; ``zipai hand add``
and ``zipai session undo`` run as their own processes against the same ledger file.

Without the browser these tests skip here and fail in CI (``CI=true``), where
``scripts/install-system-packages.sh`` installs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

try:
    import starlette  # noqa: F401
except ImportError:  # the [serve] extra: scripts/setup.sh --all installs it, so CI must have it
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("the [serve] extra is not installed", allow_module_level=True)

from zipai.mobile.explain import explain
from zipai.mobile.i18n import Translator
from zipai.scorer import Ledger
from zipai.serve.app import Config, new_token
from zipai.serve.cli import Background
from zipai.vision.detector import models_dir

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "l1_hunan.json"
PHONE = {"width": 360, "height": 780}
WAIT_MS = 5000


def _chromium() -> str:
    """The system browser, or skip (fail in CI) saying what is missing."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    reason = ""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reason = "playwright is not installed (pip install -e '.[dev]')"
    if not reason and path is None:
        reason = "no chromium: bash scripts/install-system-packages.sh installs it"
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return str(path)


@dataclass
class Served:
    db: Path
    session: str
    guest: str
    host: str
    server: Background

    def zipai(self, *args: str) -> subprocess.CompletedProcess[str]:
        """A ``zipai`` command in its own process on the served ledger."""
        env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
        return subprocess.run([sys.executable, "-m", "zipai", *args, "--db", str(self.db),
                               "--session", self.session], capture_output=True, text=True, env=env,
                              timeout=60, check=True)

    def state(self) -> Any:
        with Ledger(self.db, readonly=True) as led:
            return led.state(self.session)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("serve") / "ledger.db"
    with Ledger(db) as led:
        s = led.new_session("周五", "hunan", ["甲", "乙", "丙"])
    cfg = Config(db, s, new_token(), new_token(), proposals=True)
    with Background(cfg) as server:
        yield Served(db, "周五", server.url(cfg.guest_token), server.url(cfg.host_token), server)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    yield page
    ctx.close()


@pytest.fixture
def host_phone(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    yield page
    ctx.close()


def _open(page: Any, link: str) -> None:
    res = page.goto(link)
    assert res is not None and res.status == 200
    page.locator("#totals tr").nth(3).wait_for()  # the first view has arrived


def test_join_by_the_link_shows_the_session_and_its_totals(served: Served, phone: Any) -> None:
    _open(phone, served.guest)
    assert "周五" in phone.locator("#title").inner_text()
    rows = phone.locator("#totals tr")
    names = [rows.nth(i).locator("td").first.inner_text() for i in (1, 2, 3)]
    assert [n[0] for n in names] == ["甲", "乙", "丙"] and names[0].endswith("庄")  # 甲 deals first
    assert phone.locator("#propose").is_visible()  # this session takes proposals


def test_a_hand_added_by_the_cli_appears_with_its_working_and_an_undo_takes_it_off(
        served: Served, phone: Any) -> None:
    _open(phone, served.guest)
    served.zipai("hand", "add", str(EXAMPLE))
    e = served.state().history[-1]
    card = phone.locator(f'article[data-event="{e.event}"]')
    card.wait_for()
    want = explain(e.output, "hunan", ("甲", "乙", "丙"), Translator("zh_Hans"))
    assert card.locator("ul.working li").all_inner_texts() == want
    assert card.locator(".score").inner_text() == str(e.score)
    # the same working in English, from the page's language switch
    phone.get_by_role("button", name="EN").click()
    phone.locator("#hands h2", has_text="Every hand").wait_for()
    card = phone.locator(f'article[data-event="{e.event}"]')
    assert card.locator("ul.working li").all_inner_texts() == explain(
        e.output, "hunan", ("甲", "乙", "丙"), Translator("en"))
    served.zipai("session", "undo")
    card.wait_for(state="detached")
    assert served.state().history == [] or served.state().history[-1].event != e.event


def test_a_wrong_or_missing_token_is_refused(served: Served, phone: Any) -> None:
    base = served.guest.split("/t/")[0]
    for link in (f"{base}/t/{new_token()}/", f"{base}/", f"{base}/t/{new_token()}/view",
                 served.guest.replace("/t/", "/t/x")):
        res = phone.goto(link)
        assert res is not None and res.status == 404, link
        assert res.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in res.headers["content-security-policy"]


def _propose_total(page: Any, winner: str, total: str) -> None:
    page.locator("#propose summary").click()
    form = page.locator("#propose form")
    form.locator('select[name="winner"]').select_option(label=winner)
    form.locator('input[name="total"]').fill(total)
    form.locator('button[type="submit"]').click()
    page.locator("#propose-note.ok").wait_for()


def test_a_proposal_accepted_by_the_host_is_recorded(served: Served, phone: Any, host_phone: Any) -> None:
    before = served.state().hands
    _open(phone, served.guest)
    _open(host_phone, served.host)
    _propose_total(phone, "丙", "20")
    prop = host_phone.locator("[data-proposal]")
    prop.wait_for()
    assert phone.locator("[data-proposal] [data-answer]").count() == 0  # guests cannot answer
    assert served.state().hands == before  # nothing is recorded before the host says so
    prop.locator('[data-answer="accept"]').click()
    prop.wait_for(state="detached")
    st = served.state()
    assert st.hands == before + 1
    e = st.history[-1]
    assert e.input["total"] == 20 and e.winners == [2]
    phone.locator(f'article[data-event="{e.event}"]').wait_for()  # the guest sees it recorded
    assert phone.locator("[data-proposal]").count() == 0


def test_a_proposal_rejected_by_the_host_is_not_recorded(served: Served, phone: Any,
                                                         host_phone: Any) -> None:
    before = served.state()
    _open(phone, served.guest)
    _open(host_phone, served.host)
    _propose_total(phone, "甲", "16")
    phone.locator("[data-proposal]").wait_for()
    host_phone.locator('[data-proposal] [data-answer="reject"]').click()
    phone.locator("[data-proposal]").wait_for(state="detached")
    after = served.state()
    assert (after.hands, after.last_event) == (before.hands, before.last_event)


@pytest.mark.slow
def test_a_photo_proposal_is_read_and_a_hostile_one_gets_the_scans_refusal(
        served: Served, phone: Any, host_phone: Any, tmp_path: Path) -> None:
    from zipai.vision.decode import decode

    bad = tmp_path / "hand.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not a photo at all")
    try:
        decode(bad.read_bytes(), "photo")
        raise AssertionError("the scan took a broken file")
    except ValueError as exc:
        refusal = str(exc)
    _open(phone, served.guest)
    _open(host_phone, served.host)
    phone.locator("#propose summary").click()
    phone.get_by_role("button", name="拍照").click()
    form = phone.locator("#propose form")
    form.locator('select[name="winner"]').select_option(label="乙")
    form.locator('input[name="photo"]').set_input_files(str(bad))
    form.locator('button[type="submit"]').click()
    phone.locator("#propose-note.error", has_text=refusal).wait_for()

    form.locator('input[name="photo"]').set_input_files(str(models_dir() / "sample.jpg"))
    form.locator('button[type="submit"]').click()
    prop = host_phone.locator("[data-proposal]")
    prop.wait_for(timeout=30_000)  # the first photo loads the detector
    assert prop.locator("img.photo").count() == 1
    prop.locator('[data-answer="accept"]').click()
    prop.wait_for(state="detached")
    e = served.state().history[-1]
    assert e.photo and Path(e.photo).parent == served.db.parent / "photos" and Path(e.photo).is_file()
    img = phone.locator(f'article[data-event="{e.event}"] img.photo')
    img.wait_for()
    res = phone.request.get(served.guest + f"photo/{e.event}")
    assert res.status == 200 and res.headers["content-type"] == "image/jpeg"
    assert json.loads(json.dumps(e.input))["groups"]  # recorded card by card, from the photo
