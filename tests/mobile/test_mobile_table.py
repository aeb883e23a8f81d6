"""The app at a real table, round 2: no work lost by any path, every number with its reason, no
freeze. Each check drives the app by touches at window coordinates (``tests/touch.py``) on a
360×780 phone and a 1280×800 tablet, and fails on the app before these fixes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mobile_touch import answer, app_in, create_session, set_size
from test_mobile_ui import UI, truth_scan

SIZES = ((360, 780), (1280, 800))
IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UI]:
    with app_in(tmp_path_factory.mktemp("mobile_table")) as ui:
        first: list[tuple[Path, Any]] = []

        def scanner(path: str) -> Any:
            """The rendered scene's read, rendered once: every photo is a copy of it."""
            if not first:
                first.append((Path(path), truth_scan(Path(path))[0]))
            elif Path(path) != first[0][0]:
                shutil.copyfile(first[0][0], path)
            return first[0][1]
        ui.app.state._scanner = scanner
        yield ui


def pick_photo(ui: UI, name: str) -> Path:
    """拍照 → the photo in the chooser → 用这张 (the scan reads the rendered scene's labels)."""
    f = ui.finger
    if ui.screen.name != "capture":
        f.tap_text("capture")
    photo = ui.base / name  # type: ignore[attr-defined]
    photo.write_bytes(b"")
    ui.screen.ids.chooser.selection = [str(photo)]
    f.tap_text("use_photo")
    return photo


def back(ui: UI) -> None:
    """The top bar's ‹ (where a thumb finds it)."""
    bar = next(w for w in ui.screen.walk() if type(w).__name__ == "TopBar")
    ui.finger.tap(next(b for b in bar.children if getattr(b, "text", "") == "<"))


# ------------------------------------------------------------------ 1. the doubts' tick
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_every_new_photo_starts_with_its_doubts_unticked(ui: UI, size: tuple[int, int]) -> None:
    st, f = ui.app.state, ui.finger
    set_size(ui, size)
    create_session(ui, f"ack-{size[0]}")
    pick_photo(ui, f"ack-a-{size[0]}.jpg")
    assert ui.screen.name == "review" and st.check().doubts
    ack = ui.screen.ids.ack
    assert ack.state == "normal"
    f.tap(ack)
    assert ack.state == "down" and st.pending.ack
    # the next photo: its doubts are new, so the tick is gone and 下一步 asks for them
    back(ui)
    pick_photo(ui, f"ack-b-{size[0]}.jpg")
    answer(ui, "use_photo")  # the first photo's hand would be replaced: asked first
    assert ui.screen.name == "review" and st.draft.photo.endswith(f"ack-b-{size[0]}.jpg")
    assert ack.state == "normal" and not st.pending.ack
    f.tap_text("next")
    assert ui.screen.name == "review" and ui.app.status == st.t("doubts_first")
    # ticked again, then a new session: its first photo starts unticked too
    f.tap(ack)
    assert ack.state == "down"
    create_session(ui, f"ack2-{size[0]}")
    pick_photo(ui, f"ack-c-{size[0]}.jpg")
    assert ui.screen.name == "review" and ui.screen.ids.ack.state == "normal" and not st.pending.ack
    f.tap_text("next")
    assert ui.screen.name == "review" and ui.app.status == st.t("doubts_first")
    set_size(ui, (540, 960))
