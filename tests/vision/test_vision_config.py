"""The detector's settings: the shipped manifest reads back as it is, a config writes and reads
back equal, keys it does not own stay, and a bad setting is one clear error."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import copy_model

from zipai.vision.config import (
    FAR_ENDS,
    BackDoubles,
    Config,
    FarEnds,
    SecondLook,
    SelectedFarEnds,
    Upright,
    read_config,
    save_config,
)
from zipai.vision.detector import default_manifest
from zipai.vision.errors import ModelError

SHIPPED = json.loads(default_manifest().read_text(encoding="utf-8"))


def test_the_shipped_manifest_reads_as_its_values() -> None:
    cfg = read_config(default_manifest())
    f, r, post = cfg.finder, cfg.reader, cfg.postprocess
    assert cfg.classes == tuple(SHIPPED["classes"]) and len(cfg.classes) == 22
    assert (cfg.mean, cfg.std) == (tuple(SHIPPED["normalise"]["mean"]), tuple(SHIPPED["normalise"]["std"]))
    assert (f.long_side, f.multiple, f.stride, f.input) == (416, 32, 4, "image")
    assert (f.threshold, f.back_threshold) == (0.35, 0.4)
    assert (f.rescue_threshold, f.back_rescue_threshold) == (0.25, 0.35)
    assert (f.spare_threshold, f.max_spare, f.turned) == (0.2, 4, None)
    assert f.second_look == SecondLook(14.0, 20.0, 704)
    assert (r.size, r.margin, r.margins, r.none_threshold) == (48, 1.3, (1.3, 1.45), 0.5)
    assert (r.rescue_prob, r.back_rescue_prob, r.face_floor) == (0.7, None, 0.3)  # null: backs get none
    assert r.upright == Upright(0.8, 0.15, (1.3, 1.45))
    assert cfg.red_threshold == SHIPPED["color"]["red_threshold"]
    assert post.drop_far_ends and post.back_doubles == BackDoubles(0.6, 1.5)
    assert post.far_ends == replace(FAR_ENDS, max_sin=0.3, own_axis=True)
    assert post.selector is not None
    assert post.selector.threshold == SHIPPED["postprocess"]["selector"]["threshold"]
    assert cfg.int8_weights == "uint8" and not cfg.signed_weights


def test_a_config_writes_and_reads_back_equal() -> None:
    cfg = read_config(default_manifest())
    assert Config.from_json(cfg.to_json()) == cfg
    other = replace(cfg, finder=replace(cfg.finder, threshold=0.3, turned=None, second_look=None,
                                        spare_threshold=None),
                    reader=replace(cfg.reader, upright=None, rescue_prob=None),
                    postprocess=replace(cfg.postprocess, far_ends=FarEnds(0.25, True, 0.5, 0.8, "median"),
                                        back_doubles=None, selector=None,
                                        selected_far_ends=SelectedFarEnds(0.9, "selected", None, 0.85)))
    assert Config.from_json(other.to_json()) == other != cfg


def test_writing_the_shipped_settings_changes_nothing_in_the_manifest() -> None:
    """Keys the config does not own (files, provenance, notes) stay where they are."""
    data = copy.deepcopy(SHIPPED)
    read_config(default_manifest()).merge_into(data)
    assert json.dumps(data) == json.dumps(SHIPPED)


def test_save_keeps_the_other_keys_and_adds_notes(tmp_path: Path) -> None:
    manifest = copy_model(tmp_path)
    cfg = read_config(manifest)
    chosen = replace(cfg, postprocess=replace(cfg.postprocess, back_doubles=None))
    save_config(manifest, chosen, {"postprocess": {"tuned_on": "val"}})
    after = json.loads(manifest.read_text(encoding="utf-8"))
    assert "back_doubles" not in after["postprocess"] and after["postprocess"]["tuned_on"] == "val"
    assert after["finder"]["sha256"] == SHIPPED["finder"]["sha256"]
    assert {k: v for k, v in after.items() if k != "postprocess"} == \
        {k: v for k, v in SHIPPED.items() if k != "postprocess"}
    assert read_config(manifest) == chosen
    assert not manifest.with_suffix(".json.new").exists()


def test_an_older_manifest_reads_with_the_defaults_it_was_made_with() -> None:
    data = copy.deepcopy(SHIPPED)
    for key in ("back_threshold", "rescue_threshold", "back_rescue_threshold", "spare_threshold", "max_spare",
                "second_look"):
        data["finder"].pop(key)
    for key in ("margins", "rescue_prob", "back_rescue_prob", "upright"):
        data["reader"].pop(key)
    data["postprocess"] = {"drop_far_ends": True}
    data.pop("int8")
    cfg = Config.from_json(data)
    f, r = cfg.finder, cfg.reader
    assert f.back_threshold == f.threshold == f.rescue_threshold == f.back_rescue_threshold == 0.35
    assert (f.spare_threshold, f.second_look, r.upright, r.rescue_prob, r.back_rescue_prob) == (None,) * 5
    assert r.margins == (r.margin,) and cfg.postprocess.far_ends == FAR_ENDS and cfg.int8_weights is None
    assert Config.from_json({**data, "unknown": {"a": 1}}) == cfg  # keys of a later version are left alone


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(finder="big"), r"finder must be a JSON object"),
    (lambda d: d["finder"].pop("long_side"), r"unreadable model settings \(KeyError"),
    (lambda d: d["reader"].update(size="big"), r"unreadable model settings \(ValueError"),
    (lambda d: d["finder"].update(turned={"scale": 1}), r"finder\.turned needs a list of angles"),
    (lambda d: d["postprocess"].update(far_ends={"across": "max"}), r"across must be mean or median"),
])
def test_a_bad_setting_is_one_model_error_naming_it(change, message: str) -> None:
    data = copy.deepcopy(SHIPPED)
    change(data)
    with pytest.raises(ModelError, match=message):
        Config.from_json(data, "m.json")
