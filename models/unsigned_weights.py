"""Rewrite a model's int8 networks with their weights stored as uint8 (``export.unsigned_weights``),
and their SHA-256 and weight format in its manifest: the same numbers, computed right by the
fused integer kernels of every CPU (uint8 x int8 saturates on x86 without VNNI). Each file as it
was is kept beside it as its int8-weight twin (``finder_int8.onnx``, the manifest entry's
``int8_file``), which the runtime loads where the CPU sums uint8 x int8 exactly, about twice as
fast. Networks that ``zipai train`` exports from now on are written so already; this is for
those exported before.

    python -m zipai.models.unsigned_weights models/manifest.json
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from zipai.models.export import WEIGHT_FORMAT, int8_entry, int8_twin, sha256, unsigned_weights
from zipai.models.manifest import write_manifest
from zipai.vision.detector import load_manifest
from zipai.vision.errors import ModelError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m zipai.models.unsigned_weights", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("manifest", type=Path)
    args = p.parse_args(argv)
    try:  # the runtime's own checks: a manifest it can read, files whose SHA-256 match it
        manifest = load_manifest(args.manifest)
        for part in ("finder", "reader"):
            manifest.model_bytes(part)
    except (ModelError, KeyError, TypeError) as exc:
        print(f"unsigned_weights: {exc}; nothing changed", file=sys.stderr)
        return 2
    data = manifest.data
    files = {part: args.manifest.parent / data[part]["file"] for part in ("finder", "reader")}
    for part, f in files.items():
        copy = int8_twin(f.with_name(f"new.{f.name}"))
        shutil.copyfile(f, copy)
        moved = unsigned_weights(f)
        data[part]["sha256"] = sha256(f)
        print(f"{f}: {moved} weight tensors stored as uint8")
        if moved:  # the file as it was is the int8-weight twin, for CPUs that run it exactly
            twin = copy.replace(int8_twin(f))
            data[part]["int8_file"] = int8_entry(twin)
            print(f"{twin}: the int8-weight twin, as the file was")
        else:
            copy.unlink()
    if data.get("int8"):
        data["int8"].update({"format": WEIGHT_FORMAT, "weights": "uint8"})
    write_manifest(args.manifest, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
