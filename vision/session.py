"""The one seam between our code and an inference runtime.

Desktop uses the onnxruntime Python package. On Android the same ``.onnx`` bytes can go to
ONNX Runtime's Java API through pyjnius: wrap an ``ai.onnxruntime.OrtSession`` in a class with
this ``run`` method and pass a factory for it to ``Detector``; nothing else changes."""

from __future__ import annotations

import functools
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from .errors import ModelError


class Session(Protocol):
    """A loaded network: named float32 inputs in, outputs (in graph order) out."""

    def run(self, inputs: dict[str, np.ndarray]) -> list[np.ndarray]: ...


NO_SPINNING = ("session.intra_op.allow_spinning", "0")
"""Idle runtime workers sleep instead of spinning. The finder and the reader each keep a pool,
and a pool that spins after its run holds a core that the other network, or the numpy between
them, needs: on two cores, spinning made inference about 1.5x slower (zipai bench scan)."""

SessionFactory = Callable[[bytes, int], Session]
"""Builds a session from model bytes and a thread count."""


NO_QDQ_FUSION = ("session.disable_quant_qdq", "1")
"""Run a QDQ graph as its quantize and dequantize steps around float kernels. For networks
whose int8 weights are stored as int8 (exported before they were stored as uint8): fused,
onnxruntime's uint8 x int8 kernels on an x86 CPU without VNNI add pairs of products in 16 bits
and saturate (the shipped finder then saw backs on face cards). Unfused is right on every CPU,
and about 1.5 to 2 times slower (zipai eval int8)."""


EXACT_INT8_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})
"""x86 CPU flags under which onnxruntime's fused uint8 x int8 kernels sum their products in 32
bits (the dot-product instructions). Without them, on x86 they add pairs in 16 bits and saturate."""


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> list[str]:
    """The CPU's feature flags as Linux lists them; none where they cannot be read."""
    try:
        lines = cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return next((ln.split(":", 1)[1].split() for ln in lines if ln.startswith("flags")), [])


@functools.cache
def signed_kernels_exact(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether fused uint8 x int8 kernels compute right on this CPU, from its flags: only an x86
    CPU that says it has VNNI (or AMX) counts; any other, or one whose flags cannot be read,
    gets the weights stored as uint8, which are right on every CPU. Where the flags allow, the
    int8-weight files run the same networks to the same outputs in about half the time
    (``zipai eval int8``)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    return bool(EXACT_INT8_FLAGS.intersection(cpu_flags(cpuinfo)))


class OrtSession:
    """onnxruntime on the CPU, with a fixed thread count (phones and this machine have few cores).
    ``fuse=False`` keeps integer kernels out (``NO_QDQ_FUSION``); ``optimise=False`` runs the
    graph op by op as written, the reference that fused kernels are checked against."""

    def __init__(self, model: bytes, threads: int = 2, fuse: bool = True, optimise: bool = True) -> None:
        try:
            import onnxruntime as ort  # type: ignore[import-untyped]  # onnxruntime ships no type stubs
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise ModelError(f"onnxruntime is not installed ({exc})", code="no_runtime") from None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimise \
            else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        opts.log_severity_level = 3
        opts.add_session_config_entry(*NO_SPINNING)
        if not fuse:
            opts.add_session_config_entry(*NO_QDQ_FUSION)
        self.options = opts
        try:
            self._sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelError(f"cannot load the model ({exc})", code="bad_model") from None

    def run(self, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
        return list(self._sess.run(None, inputs))


def ort_factory(model: bytes, threads: int) -> Session:
    return OrtSession(model, threads)


def unfused_ort_factory(model: bytes, threads: int) -> Session:
    """For networks with int8 weights stored as int8 (see ``NO_QDQ_FUSION``)."""
    return OrtSession(model, threads, fuse=False)
