"""Speed of the capture screen's live read on this machine, with a video of rendered scenes as
the camera: the preview loop as the screen runs it (a frame from OpenCV, offered to the live
reader, at up to --fps), for --seconds after a warm-up; then frames shown and reads done per
second, and the median time of one read.

    zipai bench preview [--size 1280x720] [--seconds 10] [--fps 15] [--scenes 4]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from zipai.mobile.capture import CaptureError, CvCamera, LiveReader, detector_reader, write_video


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="zipai bench preview", description=__doc__.splitlines()[0])
    p.add_argument("--size", default="1280x720", help="frame size, WxH")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--fps", type=float, default=15.0, help="the preview's frame rate (the screen's)")
    p.add_argument("--scenes", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args(argv)
    try:
        w, h = (int(v) for v in a.size.lower().split("x"))
    except ValueError:
        print(f"zipai bench preview: --size must look like 1280x720, not {a.size!r}", file=sys.stderr)
        return 2
    from zipai.datasets import render_scene_full
    from zipai.vision import Detector

    frames = [np.asarray(render_scene_full(7, "val", i, (w, h))[0].convert("RGB")) for i in range(a.scenes)]
    det = Detector(threads=a.threads)
    read = detector_reader(det)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cam = CvCamera(str(write_video(frames, Path(tmp) / "table.avi", fps=a.fps)))
        except CaptureError as exc:
            print(f"zipai bench preview: {exc}", file=sys.stderr)
            return 2
        one = []
        for f in frames * 2:  # warm-up, then single reads
            t = time.perf_counter()
            seen = read(f)
            one.append(time.perf_counter() - t)
        live = LiveReader(read)
        shown, start = 0, time.perf_counter()
        try:
            while time.perf_counter() - start < a.seconds:
                tick = time.perf_counter()
                live.offer(cam.frame())
                shown += 1
                time.sleep(max(0.0, 1 / a.fps - (time.perf_counter() - tick)))
            reads = live.reads
        finally:
            live.stop()
            cam.close()
        took = time.perf_counter() - start
    print(f"preview {w}x{h}, {a.threads} threads, {a.seconds:.0f} s: {shown / took:.1f} frames shown/s, "
          f"{reads / took:.1f} reads/s (cards drawn on the preview); one read: median "
          f"{statistics.median(one[len(frames):]) * 1000:.0f} ms; last read saw {len(seen)} cards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
