"""Time one training step of the finder and of the reader on this machine, float32 and bfloat16.

The recipe's stages run for fixed wall-clock minutes, so a slower machine trains fewer steps: the
shipped finder made 22,642 steps in 60 minutes where a step took 122 ms; on 2026-12-01 the same
2-core sandbox took 234 ms. Run this before `zipai train` to know which machine you have. It
times the networks' forward pass, backward pass and AdamW update on random batches of the
recipe's shape (finder 16 crops of 256², reader 192 crops of 48², channels-last as in
training), and then the augmentation of one such batch (light, colour, blur and noise; the
reader's also stroke weight and geometry), which runs on the same two cores before each step.
Cutting the crops from the scenes is not included. Needs the [train] extra (torch).

    zipai bench train-step [--steps 12] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any


def step_ms(torch: Any, model: Any, batch: Any, steps: int, bf16: bool) -> float:
    """Median milliseconds of one step, after two warm-up steps."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    times = []
    for _ in range(steps + 2):
        t0 = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            out = model(batch)
            outs = out if isinstance(out, (tuple, list)) else [out]
            loss = sum(o.float().square().mean() for o in outs)
        opt.zero_grad()
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times[2:])


def augment_ms(fn: Any, batch: Any, steps: int) -> float:
    """Median milliseconds of one augmentation of ``batch``, after two warm-up runs."""
    times = []
    for _ in range(steps + 2):
        t0 = time.perf_counter()
        fn(batch)
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times[2:])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zipai bench train-step", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args(argv)
    if a.steps < 1:
        print("zipai bench train-step: --steps must be at least 1", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("zipai bench train-step: needs torch (pip install -e '.[train]')", file=sys.stderr)
        return 2
    from zipai.models.nets import Finder, Reader
    from zipai.models.train import photometric, reader_augment

    torch.manual_seed(0)
    torch.set_num_threads(a.threads)
    nets = (("finder", Finder(), torch.randn(16, 3, 256, 256)),
            ("reader", Reader(), torch.randn(192, 3, 48, 48)))
    for name, model, batch in nets:
        model = model.to(memory_format=torch.channels_last)
        batch = batch.contiguous(memory_format=torch.channels_last)
        fp32 = step_ms(torch, model, batch, a.steps, False)
        bf16 = step_ms(torch, model, batch, a.steps, True)
        print(f"{name}: float32 {fp32:.0f} ms a step, bfloat16 {bf16:.0f} ms "
              f"({a.threads} threads, batch {tuple(batch.shape)})")
    crops = torch.randint(0, 256, (16, 256, 256, 3), dtype=torch.uint8)
    glyphs = torch.randint(0, 256, (192, 48, 48, 3), dtype=torch.uint8)
    finder_aug = augment_ms(lambda x: photometric(torch, x), crops, a.steps)
    reader_aug = augment_ms(lambda x: reader_augment(torch, x), glyphs, a.steps)
    brush_aug = augment_ms(lambda x: reader_augment(torch, x, brush=True), glyphs, a.steps)
    print(f"augmentation: finder {finder_aug:.0f} ms a batch, reader {reader_aug:.0f} ms "
          f"({brush_aug:.0f} ms with --brush)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
