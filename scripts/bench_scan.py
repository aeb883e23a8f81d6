"""Speed of the photo path, in-process, with a fixed thread count (2 = this machine's cores):
model inference (finder + reader sessions) and `zipai scan` end to end (read and decode the
JPEG, detect, group, score), median over N photos, after a warm-up. Also the model's size.

    python scripts/bench_scan.py data/detector/heldout [--count 50] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from zipai.vision.decode import decode
from zipai.vision.detector import Detector, default_manifest
from zipai.vision.scan import scan_decoded


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("photos", type=Path, help="a folder of JPEGs (searched recursively)")
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--model", type=Path, default=None)
    args = p.parse_args(argv)
    files = sorted(args.photos.rglob("*.jpg"))[: args.count]
    if not files:
        print(f"bench_scan: no .jpg files under {args.photos}", file=sys.stderr)
        return 2
    det = Detector(args.model, threads=args.threads)
    blobs = [f.read_bytes() for f in files]
    for b in blobs[:3]:  # warm-up: first runs allocate
        scan_decoded(decode(b), det)
    infer, finder, reader, total, decode_t, layout = [], [], [], [], [], []
    sizes = set()
    for f in files:
        t0 = time.perf_counter()
        data = f.read_bytes()
        img = decode(data, str(f))
        t1 = time.perf_counter()
        sc = scan_decoded(img, det)
        t2 = time.perf_counter()
        sizes.add((sc.width, sc.height))
        total.append(t2 - t0)
        decode_t.append(t1 - t0)
        infer.append(det.timing.inference)
        finder.append(det.timing.finder)
        reader.append(det.timing.reader)
        t = det.timing  # what scan spends besides the detector: columns, the rules' checks, score
        layout.append(t2 - t1 - (t.preprocess + t.finder + t.reader + t.postprocess))
    man = args.model or default_manifest()
    meta = json.loads(Path(man).read_text())
    size = sum((Path(man).parent / meta[k]["file"]).stat().st_size for k in ("finder", "reader"))

    def ms(xs: list[float]) -> str:
        return f"{1000 * statistics.median(xs):.1f} ms"

    print(f"{len(files)} photos {', '.join(f'{w}x{h}' for w, h in sorted(sizes))}, {args.threads} threads")
    print(f"  model inference median: {ms(infer)} (finder {ms(finder)}, reader {ms(reader)})")
    print(f"  scan end to end median: {ms(total)} (of which read + decode {ms(decode_t)}); "
          f"p90 {1000 * sorted(total)[int(0.9 * (len(total) - 1))]:.1f} ms")
    print(f"  layout, the rules' checks and score: median {ms(layout)}, at most {1000 * max(layout):.1f} ms")
    print(f"  model size: {size / 1e6:.2f} MB (finder.onnx + reader.onnx)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
