"""The tuner of far ends looked for again after the selector replays each setting and writes the
winner; a manifest naming a bad setting is refused at load."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from zipai.models.tune import selected_far_ends as mod
from zipai.vision.config import FAR_ENDS, SelectedFarEnds, read_config
from zipai.vision.detector import Detector
from zipai.vision.errors import ModelError


def test_the_chosen_setting_is_written_to_the_manifest(tuning_setup: tuple[Path, Path],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    assert mod.main([str(data), "--model", str(manifest), "--write-manifest"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines()
            if re.match(r"  (off|(0\.\d+|none), (upright|selected), body \S+)\s", line)]
    assert "2 scenes of" in out and len(rows) == len(mod.SETTINGS) == 25
    chosen = re.search(r"^chosen: (.+)$", out, re.M)
    assert chosen and rows[0].startswith(f"  {chosen.group(1)} ")
    after = read_config(manifest).postprocess.selected_far_ends
    assert after in mod.SETTINGS or (after is not None and after.protect == 2.0 and replace(
        after, protect=float("inf")) in mod.SETTINGS)
    written = json.loads(manifest.read_text(encoding="utf-8"))["postprocess"].get("selected_far_ends")
    assert written is None or written["tuned_on"] == str(data)


def test_a_manifest_without_a_selector_is_refused(tuning_setup: tuple[Path, Path],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    data, manifest = tuning_setup
    man = json.loads(manifest.read_text(encoding="utf-8"))
    del man["postprocess"]["selector"]
    manifest.write_text(json.dumps(man), encoding="utf-8")
    assert mod.main([str(data), "--model", str(manifest)]) == 2
    assert "has no selector" in capsys.readouterr().err


@pytest.mark.parametrize(("value", "message"), [
    ({"prefer": "upright"}, r"selected_far_ends needs a number protect"),
    ({"protect": 0.9, "max_edge": "plain"}, r"max_edge and min_dark numbers or null"),
    ({"protect": 0.9, "prefer": "lower"},
     r"selected_far_ends\.prefer must be upright or selected, not 'lower'"),
])
def test_a_bad_setting_is_refused_at_load(tuning_setup: tuple[Path, Path], value: dict, message: str) -> None:
    _, manifest = tuning_setup
    man = json.loads(manifest.read_text(encoding="utf-8"))
    man["postprocess"]["selected_far_ends"] = value
    manifest.write_text(json.dumps(man), encoding="utf-8")
    with pytest.raises(ModelError, match=message):
        Detector(manifest, threads=1)


def test_the_steps_own_body_limits_replace_the_rules_and_none_keeps_them() -> None:
    assert SelectedFarEnds(0.9).limits(FAR_ENDS) == FAR_ENDS
    own = SelectedFarEnds(0.9, "upright", 0.4, 0.85).limits(FAR_ENDS)
    assert (own.max_edge, own.min_dark) == (0.4, 0.85) and own.max_sin == FAR_ENDS.max_sin
    assert SelectedFarEnds(0.9, "upright", None, 0.85).limits(FAR_ENDS).max_edge == FAR_ENDS.max_edge
