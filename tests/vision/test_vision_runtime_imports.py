"""The photo path runs where only numpy, Pillow and onnxruntime are installed (the app on Android):
it imports nothing that training, evaluation or tuning need, and reads the shipped model files
from zipai.models without its training code."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[2] / "models"

# A meta-path finder that refuses the training side by name: torch and the other extras, the
# rendered scenes, the app, and every module of zipai.models (the package itself, a docstring and
# the model files, stays allowed).
BLOCKER = textwrap.dedent("""
    import importlib.abc, json, sys

    BLOCKED = ("torch", "torchvision", "cv2", "kivy", "matplotlib", "onnx", "rapidocr_onnxruntime",
               "zipai.datasets", "zipai.mobile")
    refused = []

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            under = any(name == b or name.startswith(b + ".") for b in BLOCKED)
            if under or name.startswith("zipai.models."):
                refused.append(name)
                raise ImportError(f"blocked for this test: {name}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
""")


def _run(body: str) -> dict:
    code = BLOCKER + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not (MODELS / "sample.jpg").exists(), reason="the shipped model has not landed yet")
def test_scanning_a_photo_needs_no_training_module() -> None:
    got = _run("""
        from zipai.vision.scan import scan_file
        from zipai.vision.files import sample_photo

        sc = scan_file(sample_photo())
        print(json.dumps({"cards": sorted(d.card for d in sc.detections if d.card != "back"),
                          "refused": refused,
                          "loaded": sorted(m for m in sys.modules if m.startswith("zipai.models"))}))
    """)
    truth = json.loads((MODELS / "sample.json").read_text(encoding="utf-8"))
    assert got["cards"] == sorted(truth["cards"])  # the photo was read, by the shipped networks
    # nothing asked for the training side, and the model files were found without running zipai.models
    assert got["refused"] == [] and got["loaded"] == []


def test_the_blocker_refuses_what_it_names() -> None:
    """The check above would pass vacuously if the finder let everything through."""
    got = _run("""
        out = {}
        for name in ("torch", "zipai.models.train", "zipai.models.evaluate", "zipai.datasets.scene"):
            try:
                __import__(name)
                out[name] = "imported"
            except ImportError as exc:
                out[name] = str(exc)
        print(json.dumps(out))
    """)
    assert all(v.startswith("blocked for this test") for v in got.values()), got


def test_the_model_package_reads_without_torch() -> None:
    """zipai.models itself is the folder of shipped files: importing it loads no other module."""
    got = _run("""
        before = set(sys.modules)
        import zipai.models
        from zipai.vision.detector import default_manifest
        data = json.loads(open(default_manifest(), encoding="utf-8").read())
        print(json.dumps({"new": sorted(m for m in set(sys.modules) - before if m.startswith("zipai.models")),
                          "keys": sorted(data)}))
    """)
    assert got["new"] == ["zipai.models"]
    assert "training" not in got["keys"] and "figures" not in got["keys"]  # provenance lives apart
