"""Stage the Android build folder: ``main.py``, the ``zipai`` packages the app needs, the shipped
model and ``buildozer.spec``, laid out as buildozer expects (``source.dir = .``).

    python -m zipai.mobile.stage_android build/android
    cd build/android && buildozer android debug

Training code, datasets and tests stay out; the repository's folder-per-package layout
(engine/ is zipai.engine, ...) becomes a plain ``zipai/`` tree.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

# package -> source folder, and which files of it go into the APK
PACKAGES: dict[str, tuple[str, ...]] = {
    "zipai": ("__init__.py",),
    "zipai.engine": ("*.py", "variants/*.py"),
    "zipai.scorer": ("*.py",),
    "zipai.vision": ("*.py", "layout/*.py", "deck/*.py"),
    "zipai.models": ("__init__.py", "*.onnx", "manifest.json", "sample.jpg"),
    "zipai.mobile": ("*.py", "kv/*.kv"),
}
SKIP = frozenset({"cli.py", "bench.py", "stage_android.py"})  # desktop commands, not the app
MAIN_PY = '''"""Android entry point: the table app with its data in the app's private folder."""
import sys

from zipai.mobile.main import main

sys.exit(main([]))
'''


def source_dir(package: str) -> Path:
    """Where a zipai package lives in this checkout or installation."""
    import importlib

    return Path(importlib.import_module(package).__file__ or "").resolve().parent


def stage(out: Path) -> list[Path]:
    """Copy everything into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for package, patterns in PACKAGES.items():
        src = source_dir(package)
        dest = out.joinpath(*package.split("."))
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for pattern in patterns:
            for f in sorted(src.glob(pattern)):
                if f.name in SKIP:
                    continue
                target = dest / f.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, target)
                written.append(target)
    (out / "main.py").write_text(MAIN_PY, encoding="utf-8")
    shutil.copyfile(source_dir("zipai.mobile") / "buildozer.spec", out / "buildozer.spec")
    written += [out / "main.py", out / "buildozer.spec"]
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m zipai.mobile.stage_android",
                                description="Stage the Android (buildozer) build folder.")
    p.add_argument("out", help="the folder to fill, e.g. build/android")
    args = p.parse_args(argv)
    try:
        files = stage(Path(args.out))
    except OSError as exc:
        print(f"stage_android: {exc}", file=sys.stderr)
        return 2
    models = [f for f in files if f.suffix == ".onnx"]
    print(f"staged {len(files)} files into {args.out} ({len(models)} ONNX model files)")
    if not models:
        print("stage_android: no ONNX model found in zipai.models; the APK could not read photos",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

