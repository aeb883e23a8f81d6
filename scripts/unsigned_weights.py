"""Rewrite a model's int8 networks with their weights stored as uint8 (``export.unsigned_weights``),
and their SHA-256 and weight format in its manifest: the same numbers, computed right by the
fused integer kernels of every CPU (uint8 x int8 saturates on x86 without VNNI). Networks that
``zipai train`` exports from now on are written so already; this is for those exported before.

    python scripts/unsigned_weights.py models/manifest.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from zipai.models.export import WEIGHT_FORMAT, sha256, unsigned_weights
from zipai.models.manifest import write_manifest
from zipai.vision.detector import load_manifest
from zipai.vision.errors import ModelError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
        moved = unsigned_weights(f)
        data[part]["sha256"] = sha256(f)
        print(f"{f}: {moved} weight tensors stored as uint8")
    if data.get("int8"):
        data["int8"].update({"format": WEIGHT_FORMAT, "weights": "uint8"})
    write_manifest(args.manifest, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
