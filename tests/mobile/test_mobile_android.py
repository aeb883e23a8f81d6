"""The Android inference seam: ``JavaOrtSession`` marshals numpy arrays through the ONNX Runtime
Java API's shapes (direct ByteBuffer -> FloatBuffer -> OnnxTensor, Result -> bytes -> arrays).

There is no JVM here, so a small stand-in for the few Java classes it uses runs the model in
the onnxruntime Python package; the outputs must equal vision's own ``OrtSession``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zipai.mobile.android_ort import JAVA_CLASSES, AndroidRuntimeError, JavaOrtSession, on_android
from zipai.vision import OrtSession

onnx = pytest.importorskip("onnx")


def tiny_model() -> bytes:
    """image [1,3,4,5] -> heat = image * 2, reg = image + 1 (two outputs, like the finder)."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 4, 5])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 3, 4, 5]) for n in ("heat", "reg")]
    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
    graph = helper.make_graph([helper.make_node("Mul", ["image", "two"], ["heat"]),
                               helper.make_node("Add", ["image", "one"], ["reg"])],
                              "tiny", [x], outs, [two, one])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString()


# ---------------------------------------------------------------- a stand-in for the Java side
class ByteBuffer:
    def __init__(self, data: bytearray) -> None:
        self.data, self.pos, self.native = data, 0, False

    @staticmethod
    def allocateDirect(n: int) -> ByteBuffer:
        return ByteBuffer(bytearray(n))

    def order(self, o: str) -> ByteBuffer:
        self.native = o == "native"
        return self

    def put(self, b: bytes) -> ByteBuffer:
        assert isinstance(b, bytes)
        self.data[self.pos:self.pos + len(b)] = b
        self.pos += len(b)
        return self

    def rewind(self) -> ByteBuffer:
        self.pos = 0
        return self

    def asFloatBuffer(self) -> ByteBuffer:
        assert self.native, "a FloatBuffer view must be in native order"
        return self

    def hasArray(self) -> bool:
        return True

    def array(self) -> list[int]:  # what older pyjnius gives for byte[]: signed ints
        return [b - 256 if b > 127 else b for b in self.data]


class ByteOrder:
    @staticmethod
    def nativeOrder() -> str:
        return "native"


class Tensor:
    closed = 0

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr

    @staticmethod
    def createTensor(env: Any, fb: ByteBuffer, shape: list[int]) -> Tensor:
        assert all(isinstance(d, int) for d in shape)
        return Tensor(np.frombuffer(bytes(fb.data), np.float32).reshape(shape))

    def getInfo(self) -> Any:
        return type("Info", (), {"getShape": lambda _s: list(self.arr.shape)})()

    def getByteBuffer(self) -> ByteBuffer:
        return ByteBuffer(bytearray(self.arr.astype(np.float32).tobytes())).order("native")

    def close(self) -> None:
        Tensor.closed += 1


class Session:
    def __init__(self, model: bytes, threads: int) -> None:
        import onnxruntime as ort

        self.s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        self.threads = threads

    def getOutputNames(self) -> Any:
        names = [o.name for o in self.s.get_outputs()]
        return type("Set", (), {"toArray": lambda _s: names})()

    def run(self, feed: dict[str, Tensor]) -> Any:
        outs = [Tensor(a) for a in self.s.run(None, {k: v.arr for k, v in feed.items()})]
        return type("Result", (), {"get": lambda _s, i: outs[i], "close": lambda _s: None})()

    def close(self) -> None:
        pass


class Options:
    def __init__(self) -> None:
        self.threads = 0
        self.config: dict[str, str] = {}

    def setIntraOpNumThreads(self, n: int) -> None:
        self.threads = n

    def addConfigEntry(self, key: str, value: str) -> None:
        self.config[key] = value


class Env:
    @staticmethod
    def getEnvironment() -> Env:
        return Env()

    def createSession(self, model: bytes, opts: Options) -> Session:
        assert isinstance(model, bytes)
        assert opts.config == {"session.intra_op.allow_spinning": "0"}  # idle workers sleep
        return Session(model, opts.threads)


class HashMap(dict):
    def put(self, k: str, v: Any) -> None:
        self[k] = v


FAKE = {JAVA_CLASSES["env"]: Env, JAVA_CLASSES["options"]: Options, JAVA_CLASSES["tensor"]: Tensor,
        JAVA_CLASSES["bytes"]: ByteBuffer, JAVA_CLASSES["order"]: ByteOrder, JAVA_CLASSES["map"]: HashMap}


def test_java_session_gives_what_the_python_session_gives() -> None:
    model = tiny_model()
    x = np.random.default_rng(3).normal(size=(1, 3, 4, 5)).astype(np.float32)
    java = JavaOrtSession(model, threads=2, autoclass=FAKE.__getitem__)
    want = OrtSession(model, threads=2).run({"image": x})
    before = Tensor.closed
    got = java.run({"image": x})
    assert [g.shape for g in got] == [w.shape for w in want] and java.output_names == ["heat", "reg"]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == np.float32 and np.array_equal(g, w)
    assert Tensor.closed == before + 1  # the input tensor is released
    assert java.session.threads == 2


def test_missing_java_runtime_is_one_clear_error(tmp_path: Path) -> None:
    def missing(name: str) -> Any:
        raise LookupError(f"Class not found {name!r}")

    with pytest.raises(AndroidRuntimeError, match="not in the APK"):
        JavaOrtSession(b"", autoclass=missing)
    with pytest.raises(AndroidRuntimeError, match="pyjnius"):
        JavaOrtSession(b"")  # no pyjnius on the desktop
    assert not on_android()


def test_staged_android_tree_is_complete(tmp_path: Path) -> None:
    import configparser
    import py_compile
    import subprocess
    import sys

    from zipai.mobile.stage_android import main as stage_main

    out = tmp_path / "android"
    assert stage_main([str(out)]) == 0
    spec = configparser.ConfigParser()
    spec.read(out / "buildozer.spec", encoding="utf-8")
    app = spec["app"]
    assert app["source.dir"] == "." and "android.permission.CAMERA" in app["android.permissions"]
    assert "com.microsoft.onnxruntime:onnxruntime-android" in app["android.gradle_dependencies"]
    reqs = [r.strip().split("==")[0] for r in app["requirements"].split(",")]
    assert "pyjnius" in reqs and "kivy" in reqs and not any(r.startswith("onnxruntime") for r in reqs)
    assert (out / "main.py").is_file() and (out / "zipai" / "mobile" / "kv" / "theme.kv").is_file()
    for f in out.rglob("*.py"):
        py_compile.compile(str(f), doraise=True, cfile=str(tmp_path / "c.pyc"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "import zipai.mobile.state, zipai.mobile.android_ort, zipai.vision.scan; "
            "print(*sorted(m.__file__ for n, m in sys.modules.items() if n.startswith('zipai') and "
            "getattr(m, '__file__', None)), sep=chr(10))")
    res = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr[-1500:]
    loaded = [Path(f) for f in res.stdout.split()]
    assert any(f.parent.name == "layout" for f in loaded)  # subpackages come along
    assert all(f.is_relative_to(out) for f in loaded), loaded  # the staged tree alone is enough
