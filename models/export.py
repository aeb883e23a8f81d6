"""ONNX export and the manifest that the runtime checks (classes, input sizes, normalisation,
SHA-256 of each file, training data seed and figures)."""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

from zipai.vision.color import RED_THRESHOLD
from zipai.vision.preprocess import MEAN, STD

from .nets import FINDER_CLASSES, FINDER_STRIDE, READER_CLASSES, FinderExport, ReaderExport

FINDER_FILE = "finder.onnx"
READER_FILE = "reader.onnx"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_onnx(torch: Any, module: Any, example: Any, path: Path, input_name: str,
                output_names: list[str], dynamic: dict[str, dict[int, str]]) -> None:
    """A plain opset-17 graph that onnxruntime on desktop and Android both run."""
    module.eval().to(memory_format=torch.contiguous_format)  # training may leave channels-last
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, example, str(path), input_names=[input_name], output_names=output_names,
                          dynamic_axes=dynamic, opset_version=17, dynamo=False, do_constant_folding=True)


def export_all(torch: Any, finder: Any, reader: Any, out_dir: Path, training: dict[str, Any],
               figures: dict[str, Any], long_side: int = 416, crop: int = 48, margin: float = 1.3) -> Path:
    """Write finder.onnx, reader.onnx and manifest.json into ``out_dir``; returns the manifest."""
    out_dir.mkdir(parents=True, exist_ok=True)
    fpath, rpath = out_dir / FINDER_FILE, out_dir / READER_FILE
    export_onnx(torch, FinderExport(finder), torch.zeros(1, 3, 320, long_side), fpath, "image",
                ["heat", "reg"], {"image": {2: "height", 3: "width"}})
    export_onnx(torch, ReaderExport(reader), torch.zeros(4, 3, crop, crop), rpath, "crops",
                ["probs"], {"crops": {0: "n"}, "probs": {0: "n"}})
    manifest = {
        "format": 1,
        "classes": list(READER_CLASSES),
        "finder": {"file": FINDER_FILE, "sha256": sha256(fpath), "input": "image",
                   "classes": list(FINDER_CLASSES), "long_side": long_side, "multiple": 32,
                   "stride": FINDER_STRIDE, "threshold": 0.3,
                   "outputs": {"heat": "sigmoid heatmap, non-peaks zeroed",
                               "reg": "log w, log h (stride cells), dx, dy"}},
        "reader": {"file": READER_FILE, "sha256": sha256(rpath), "input": "crops", "size": crop,
                   "margin": margin, "none_threshold": 0.5},
        "normalise": {"mean": list(MEAN), "std": list(STD), "layout": "NCHW RGB, (x/255 - mean) / std"},
        "color": {"red_threshold": RED_THRESHOLD},
        "postprocess": {"drop_far_ends": True},
        "training": training,
        "figures": figures,
    }
    old = out_dir / "manifest.json"
    if old.exists():  # keep measured figures and calibrations that still apply
        try:
            prev = json.loads(old.read_text(encoding="utf-8"))
            if "color" in prev:
                manifest["color"] = prev["color"]
        except (OSError, json.JSONDecodeError):
            pass
    old.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return old


def update_manifest(path: Path, section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into one section of the manifest (figures, color calibration)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault(section, {}).update(values)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
