"""Does this CPU's onnxruntime compute a model's int8 networks right when it fuses them?

The networks ship as QDQ graphs (uint8 activations; int8 weights stored as uint8, zero point
128: ``zipai.models.export.unsigned_weights``). onnxruntime fuses them into integer kernels,
and on an x86 CPU without VNNI its uint8 x int8 kernels add pairs of products in 16 bits and
saturate, which weights stored as int8 would get. This script measures it on the machine it
runs on: each network's outputs on the sample photo as the runtime runs it (fused) against
the same graph run op by op with no optimisation (the reference: float kernels between the
quantize and dequantize steps), the time of each, and the cards a whole scan of the sample
photo reads either way; for the uint8-weight files and, where the manifest has them, for their
int8-weight twins, which the runtime loads where the CPU's flags say it sums uint8 x int8
exactly (``zipai.vision.session.signed_kernels_exact``). (The runtime runs int8 weights on any
other CPU unfused: ``zipai.vision.session.NO_QDQ_FUSION``.)

    zipai eval int8                            # the shipped model
    zipai eval int8 --model OLD/manifest.json  # e.g. one exported with int8 weights
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort

from zipai.vision.decode import load
from zipai.vision.detector import Detector, loads_int8_files, models_dir
from zipai.vision.preprocess import cut_crops, letterbox, normalise
from zipai.vision.scan import scan_file
from zipai.vision.session import OrtSession, cpu_flags, ort_factory, signed_kernels_exact

Feed = dict[str, np.ndarray]


def cpu_summary() -> str:
    """The CPU's model name and whether it has the integer dot-product instructions."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return "unknown CPU"
    name = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "?")
    flags = cpu_flags()
    vnni = [f for f in flags if "vnni" in f]
    return f"{name}; AVX2 {'yes' if 'avx2' in flags else 'no'}; VNNI {', '.join(vnni) or 'none'}"


def reference(model: bytes, threads: int = 2) -> OrtSession:
    """The graph op by op, no optimisation: the quantized numbers as written, on any CPU (a
    ``SessionFactory``, so a ``Detector`` can scan with it)."""
    return OrtSession(model, threads, optimise=False)


def median_ms(run: Callable[[Feed], list[np.ndarray]], feed: Feed, n: int) -> float:
    run(feed)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        run(feed)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai eval int8", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", type=Path, default=None, help="manifest.json (default: the shipped model)")
    p.add_argument("--photo", type=Path, default=models_dir() / "sample.jpg")
    p.add_argument("--repeat", type=int, default=20, help="timed runs of each network")
    args = p.parse_args(argv)
    det = Detector(args.model, threads=2, factory=ort_factory, weights="uint8")  # fused, whatever the weights
    ref_det = Detector(args.model, threads=2, factory=reference, weights="uint8")
    decoded = load(args.photo)
    cfg = det.config
    x, _ = letterbox(decoded.image, cfg.finder.long_side, cfg.finder.multiple, cfg.mean, cfg.std)
    glyphs = [d.box for d in ref_det.detect(decoded).detections if d.card != "back"] \
        or [(0.0, 0.0, 40.0, 40.0)]
    crops = cut_crops(np.asarray(decoded.image), np.asarray(glyphs, np.float32) / decoded.scale,
                      cfg.reader.size, cfg.reader.margin)
    m = det.manifest
    loads = "int8" if loads_int8_files(m) else "uint8 (or as exported)"
    print(f"CPU: {cpu_summary()}; onnxruntime {ort.__version__}; {m.path}")
    print(f"  fused uint8 x int8 exact by this CPU's flags: {'yes' if signed_kernels_exact() else 'no'}; "
          f"the runtime loads the {loads} files")
    want = Counter(d.card for d in scan_file(args.photo, ref_det).detections)
    for twin in (False, True) if m.has_int8_files else (False,):
        feeds = (("finder", {"image": x}), ("reader", {"crops": normalise(crops, cfg.mean, cfg.std)}))
        for part, feed in feeds:
            model = m.model_bytes(part, twin)
            ref, fused = reference(model), OrtSession(model, threads=2)
            err = [np.abs(a - b) for a, b in zip(fused.run(feed), ref.run(feed), strict=True)]
            worst, mean = max(float(e.max()) for e in err), float(np.mean([e.mean() for e in err]))
            print(f"  {m.data[part]['int8_file']['file'] if twin else m.data[part]['file']}: fused against "
                  f"the reference, largest difference {worst:.4f}, mean {mean:.5f}; median "
                  f"{median_ms(fused.run, feed, args.repeat):.1f} ms fused, "
                  f"{median_ms(ref.run, feed, args.repeat):.1f} ms op by op")
        scanner = Detector(m, threads=2, factory=ort_factory, weights="int8") if twin else det
        got = Counter(d.card for d in scan_file(args.photo, scanner).detections)
        which = "the int8 twins" if twin else "the manifest's files"
        print(f"  {args.photo.name}, {which} fused: the reference reads {sum(want.values())} cards; "
              f"fused {sum(got.values())}, "
              f"{sum((got - want).values())} of them not among the reference's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
