"""ONNX Runtime on Android through its Java API (``ai.onnxruntime``, the Maven package
``com.microsoft.onnxruntime:onnxruntime-android``) and pyjnius.

python-for-android has no recipe for the onnxruntime Python wheel, so on a phone the detector's
two networks run in the Java runtime instead. ``JavaOrtSession`` has vision's ``Session`` shape
(``run(inputs) -> list of arrays``) and ``java_factory`` is a ``SessionFactory``; pass it to
``zipai.vision.Detector(factory=...)`` and nothing else in the pipeline changes.

Tensors cross the bridge as bytes: a numpy float32 array is copied into a direct
``java.nio.ByteBuffer`` in native order and handed to ``OnnxTensor.createTensor`` as a
``FloatBuffer``; outputs come back through ``getByteBuffer`` (or ``getFloatBuffer``) and their
``TensorInfo`` shape. The Java classes are looked up through an ``autoclass`` function so tests
can stand in for the JVM.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from zipai.vision.session import NO_SPINNING

ORT = "ai.onnxruntime"
JAVA_CLASSES = {
    "env": f"{ORT}.OrtEnvironment",
    "options": f"{ORT}.OrtSession$SessionOptions",
    "tensor": f"{ORT}.OnnxTensor",
    "bytes": "java.nio.ByteBuffer",
    "order": "java.nio.ByteOrder",
    "map": "java.util.HashMap",
}


class AndroidRuntimeError(ValueError):
    """The Java runtime is missing or refused the model; one line says which."""


def on_android() -> bool:
    """python-for-android sets ANDROID_ARGUMENT (Kivy's own platform check reads the same)."""
    return "ANDROID_ARGUMENT" in os.environ or "ANDROID_PRIVATE" in os.environ


def _autoclass() -> Callable[[str], Any]:
    try:
        from jnius import autoclass  # type: ignore[import-not-found]
    except ImportError as exc:
        raise AndroidRuntimeError(f"pyjnius is not available ({exc}); this runs inside the APK") from None
    made: Callable[[str], Any] = autoclass  # pyjnius is untyped: its autoclass names a Java class
    return made


class JavaOrtSession:
    """One ONNX model in ``ai.onnxruntime.OrtSession``: float32 inputs by name, outputs in order."""

    def __init__(self, model: bytes, threads: int = 2, autoclass: Callable[[str], Any] | None = None) -> None:
        find = autoclass or _autoclass()
        try:
            self._j = {k: find(v) for k, v in JAVA_CLASSES.items()}
        except Exception as exc:
            raise AndroidRuntimeError(f"ONNX Runtime for Android is not in the APK ({exc})") from None
        self.env = self._j["env"].getEnvironment()
        opts = self._j["options"]()
        opts.setIntraOpNumThreads(max(1, int(threads)))
        opts.addConfigEntry(*NO_SPINNING)  # as vision's OrtSession: two pools share few cores
        try:
            self.session = self.env.createSession(bytes(model), opts)
        except Exception as exc:
            raise AndroidRuntimeError(f"ONNX Runtime for Android cannot load the model ({exc})") from None
        self.output_names = list(self.session.getOutputNames().toArray())

    def _tensor(self, arr: np.ndarray) -> Any:
        a = np.ascontiguousarray(arr, dtype=np.float32)
        buf = self._j["bytes"].allocateDirect(a.nbytes)
        buf.order(self._j["order"].nativeOrder())
        buf.put(a.astype(a.dtype.newbyteorder("=")).tobytes())
        buf.rewind()
        return self._j["tensor"].createTensor(self.env, buf.asFloatBuffer(), [int(d) for d in a.shape])

    @staticmethod
    def _array(value: Any) -> np.ndarray:
        shape = tuple(int(d) for d in value.getInfo().getShape())
        get_bytes = getattr(value, "getByteBuffer", None)
        if get_bytes is not None:
            bb = get_bytes()
            data = _to_bytes(bb.array()) if bb.hasArray() else _drain(bb)
            return np.frombuffer(data, dtype=np.float32).reshape(shape).copy()
        floats = value.getFloatBuffer().array()
        return np.asarray(list(floats), dtype=np.float32).reshape(shape)

    def run(self, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
        tensors = {name: self._tensor(arr) for name, arr in inputs.items()}
        feed = self._j["map"]()
        for name, t in tensors.items():
            feed.put(name, t)
        result = self.session.run(feed)
        try:
            return [self._array(result.get(i)) for i in range(len(self.output_names))]
        finally:
            result.close()
            for t in tensors.values():
                t.close()

    def close(self) -> None:
        self.session.close()


def _to_bytes(arr: Any) -> bytes:
    """A Java ``byte[]`` as Python bytes: pyjnius gives a buffer, or a list of signed ints."""
    try:
        return bytes(memoryview(arr))
    except TypeError:
        return bytes(b & 0xFF for b in arr)


def _drain(bb: Any) -> bytes:
    """The bytes of a direct buffer that has no backing array."""
    bb.rewind()
    return bytes(bb.get() & 0xFF for _ in range(bb.remaining()))


def java_factory(model: bytes, threads: int) -> JavaOrtSession:
    """vision's ``SessionFactory`` for Android."""
    return JavaOrtSession(model, threads)
