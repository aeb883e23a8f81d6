"""ONNX export, the manifest that the runtime checks (classes, input sizes, normalisation,
SHA-256 of each file) and the provenance beside it (training data seed and recipe, figures)."""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zipai.vision.color import RED_THRESHOLD
from zipai.vision.config import Config, FinderConfig, PostprocessConfig, ReaderConfig
from zipai.vision.constants import (
    FINDER_CLASSES,
    FINDER_LONG_SIDE,
    FINDER_STRIDE,
    READER_CLASSES,
    READER_CROP,
    READER_MARGIN,
)
from zipai.vision.files import models_dir
from zipai.vision.preprocess import MEAN, STD, normalise

from .manifest import PROVENANCE_SECTIONS, provenance_path, read_provenance, write_manifest
from .nets import FinderExport, ReaderExport

FINDER_FILE = "finder.onnx"
READER_FILE = "reader.onnx"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_onnx(torch: Any, module: Any, example: Any, path: Path, input_name: str,
                output_names: list[str], dynamic: dict[str, dict[int, str]]) -> None:
    """A plain opset-17 graph that onnxruntime on desktop and Android both run."""
    module.eval().to(memory_format=torch.contiguous_format)  # training may leave channels-last
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, example, str(path), input_names=[input_name], output_names=output_names,
                          dynamic_axes=dynamic, opset_version=17, dynamo=False, do_constant_folding=True)


def export_reader_onnx(torch: Any, reader: Any, path: Path, crop: int) -> None:
    """The reader graph: a batch of crops in, class probabilities out."""
    export_onnx(torch, ReaderExport(reader), torch.zeros(4, 3, crop, crop), path, "crops",
                ["probs"], {"crops": {0: "n"}, "probs": {0: "n"}})


def quantize(path: Path, inputs: Sequence[dict[str, np.ndarray]], int8_copy: Path | None = None) -> None:
    """Rewrite an ONNX file as static int8 (QDQ: int8 weights per output channel, uint8
    activations with ranges measured on ``inputs``). On two CPU threads it runs both networks
    in about half the time, which pays for the finder's mirrored second view, and on the
    validation scenes it read as well as float32 (the issue note has the figures). The weights
    end up stored as uint8 (``unsigned_weights``); ``int8_copy`` keeps the graph as quantized,
    weights stored as int8, for the CPUs whose fused kernels run it exactly and faster."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Feed(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter(inputs)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.it, None)

    pre = path.with_suffix(".pre.onnx")
    try:
        quant_pre_process(str(path), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(path), Feed(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    finally:
        pre.unlink(missing_ok=True)
    if int8_copy is not None:
        shutil.copyfile(path, int8_copy)
    unsigned_weights(path)


def int8_twin(path: Path) -> Path:
    """Where a network's int8-weight twin lies: ``finder.onnx`` -> ``finder_int8.onnx`` beside it."""
    return path.with_name(path.name.removesuffix(".onnx") + "_int8.onnx")


def int8_entry(path: Path) -> dict[str, str]:
    """A manifest entry's ``int8_file`` for the twin at ``path`` (``Manifest.model_bytes``)."""
    return {"file": path.name, "sha256": sha256(path),
            "weights": "int8, for CPUs whose fused uint8 x int8 kernels sum in 32 bits (x86 VNNI)"}


WEIGHT_FORMAT = "QDQ, int8 weights per channel stored as uint8 (zero point 128), uint8 activations"


def unsigned_weights(path: Path) -> int:
    """Store the int8 weights of a QDQ graph as uint8 with their zero points moved by 128: the
    same numbers, ``(q + 128 - (z + 128)) * scale``. onnxruntime fuses uint8 x int8 into integer
    kernels that, on an x86 CPU without VNNI (AVX2 alone), add pairs of products in 16 bits and
    saturate: there the shipped finder saw backs on face cards (held-out per card 91.34%, not
    97.24%). uint8 x uint8 is summed in 32 bits on every CPU. Returns the tensors moved."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    const = {t.name: t for t in graph.initializer}
    done = set[str]()
    for node in graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in const:
            continue
        q = numpy_helper.to_array(const[node.input[0]])
        if q.dtype != np.int8:
            continue
        zero = numpy_helper.to_array(const[node.input[2]]) if len(node.input) > 2 else np.zeros((), np.int8)
        names = [f"{node.input[0]}_u8", f"{node.input[0]}_zero_u8"]
        if names[0] not in done:  # a weight two nodes share is moved once
            shifted = [(t.astype(np.int16) + 128).astype(np.uint8) for t in (q, zero)]
            pairs = zip(shifted, names, strict=True)
            graph.initializer.extend(numpy_helper.from_array(t, n) for t, n in pairs)
            done.add(names[0])
        node.input[0] = names[0]
        if len(node.input) > 2:
            node.input[2] = names[1]
        else:
            node.input.append(names[1])
    used = {name for node in graph.node for name in node.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    onnx.save(model, str(path))
    return len(done)


def calibration_inputs(photos: Sequence[np.ndarray], crops: np.ndarray,
                       batch: int = 256) -> tuple[list[dict[str, np.ndarray]], list[dict[str, np.ndarray]]]:
    """Finder inputs from uint8 photos already at the finder's scale (padded to a multiple of
    32 with the mean colour, as at run time) and reader inputs from uint8 crops, in batches."""
    finder_in = []
    for ph in photos:
        h, w = ph.shape[:2]
        x = np.zeros((1, 3, -(-h // 32) * 32, -(-w // 32) * 32), np.float32)
        x[0, :, :h, :w] = normalise(ph)
        finder_in.append({"image": x})
    reader_in = [{"crops": normalise(crops[i:i + batch])} for i in range(0, len(crops), batch)]
    return finder_in, reader_in


def export_all(torch: Any, finder: Any, reader: Any, out_dir: Path, training: dict[str, Any],
               figures: dict[str, Any], long_side: int = FINDER_LONG_SIDE, crop: int = READER_CROP,
               margin: float = READER_MARGIN,
               flip: bool = True, calibration: tuple[Sequence[np.ndarray], np.ndarray] | None = None) -> Path:
    """Write finder.onnx, reader.onnx, manifest.json and provenance.json (``training``,
    ``figures``) into ``out_dir``; returns the manifest.
    ``flip``: the finder graph averages the photo and its mirror. ``calibration`` (finder-scale
    photos, reader crops, both uint8): quantize both networks to int8 on them."""
    out_dir.mkdir(parents=True, exist_ok=True)
    fpath, rpath = out_dir / FINDER_FILE, out_dir / READER_FILE
    export_onnx(torch, FinderExport(finder, flip=flip), torch.zeros(1, 3, 320, long_side), fpath, "image",
                ["heat", "reg"], {"image": {2: "height", 3: "width"}})
    export_reader_onnx(torch, reader, rpath, crop)
    int8: dict[str, Any] | None = None
    if calibration is not None:
        finder_in, reader_in = calibration_inputs(*calibration)
        quantize(fpath, finder_in, int8_twin(fpath))
        quantize(rpath, reader_in, int8_twin(rpath))
        int8 = {"format": WEIGHT_FORMAT,
                "calibration": f"{len(finder_in)} val photos, {len(calibration[1])} val crops"}
    old = out_dir / "manifest.json"
    manifest: dict[str, Any] = {
        "finder": {"file": FINDER_FILE, "sha256": sha256(fpath), "classes": list(FINDER_CLASSES),
                   "mirror_averaged": flip, "outputs": {"heat": "sigmoid heatmap, non-peaks zeroed",
                                                        "reg": "log w, log h (stride cells), dx, dy"}},
        "reader": {"file": READER_FILE, "sha256": sha256(rpath)},
        "normalise": {"layout": "NCHW RGB, (x/255 - mean) / std"},
        "int8": int8,
    }
    settings = exported_settings(long_side, crop, margin, int8 is not None, _kept_red_threshold(old))
    settings.merge_into(manifest)
    if int8 is not None:
        for part, path in (("finder", fpath), ("reader", rpath)):
            manifest[part]["int8_file"] = int8_entry(int8_twin(path))
    write_manifest(old, manifest)
    write_manifest(provenance_path(old), {"training": training, "figures": figures})
    return old


def exported_settings(long_side: int, crop: int, margin: float, int8: bool, red_threshold: float) -> Config:
    """A new model's settings before any tuning: the finder's and reader's inputs as trained, a
    plain threshold, far ends dropped, nothing else (``zipai tune`` chooses the rest)."""
    return Config(classes=tuple(READER_CLASSES), mean=tuple(MEAN), std=tuple(STD),
                  finder=FinderConfig(long_side=long_side, stride=FINDER_STRIDE, threshold=0.3,
                                      back_threshold=0.3, rescue_threshold=0.3, back_rescue_threshold=0.3),
                  reader=ReaderConfig(size=crop, margin=margin, margins=(margin,), none_threshold=0.5),
                  red_threshold=red_threshold, postprocess=PostprocessConfig(drop_far_ends=True),
                  int8_weights="uint8" if int8 else None)


def _kept_red_threshold(old: Path) -> float:
    """The ink colour calibration of the manifest being replaced, which still applies."""
    try:
        prev = json.loads(old.read_text(encoding="utf-8"))
        return float(prev["color"]["red_threshold"])
    except (OSError, ValueError, KeyError, TypeError):
        return RED_THRESHOLD


def _swap_in(out_dir: Path, part: str, name: str, write: Callable[[Path, dict[str, Any]], None],
             training: dict[str, Any], figures: dict[str, Any]) -> Path:
    """Write one network anew behind the other one already in ``out_dir`` (``write`` makes
    the file): its manifest entry gets the new hash, ``training`` and ``figures`` are merged
    into the provenance, and every other setting stays. The file is written beside the old one
    and renamed over it, the manifest last: a run stopped in between leaves a network whose hash the manifest
    refuses at load, never a half-written file."""
    manifest = out_dir / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    tmp = out_dir / f"new.{name}"
    twin = int8_twin(tmp)  # the int8-weight twin, when ``write`` makes one
    twin.unlink(missing_ok=True)
    write(tmp, data)
    data[part]["sha256"] = sha256(tmp)
    provenance = read_provenance(manifest)
    provenance["training"].update(training)
    provenance["figures"].update(figures)
    for section in PROVENANCE_SECTIONS:  # a manifest from before provenance moved out sheds it
        data.pop(section, None)
    if twin.exists():
        data[part]["int8_file"] = int8_entry(twin.replace(int8_twin(out_dir / name)))
    else:  # the old network's twin must not stand in for the new one
        data[part].pop("int8_file", None)
    tmp.replace(out_dir / name)
    write_manifest(provenance_path(manifest), provenance)
    write_manifest(manifest, data)
    return manifest


def export_reader(torch: Any, reader: Any, out_dir: Path, training: dict[str, Any], figures: dict[str, Any],
                  calibration: np.ndarray | None = None, crop: int = READER_CROP) -> Path:
    """A new reader.onnx behind the finder already in ``out_dir`` (``_swap_in``).
    ``calibration`` (uint8 crops): int8."""

    def write(tmp: Path, data: dict[str, Any]) -> None:
        export_reader_file(torch, reader, tmp, calibration, crop, int8_twin(tmp))

    return _swap_in(out_dir, "reader", READER_FILE, write, training, figures)


JOINED = "zipai_joined_readers"  # metadata of a reader file joined from several: trained on no further


def export_reader_file(torch: Any, reader: Any, path: Path, calibration: np.ndarray | None = None,
                       crop: int = READER_CROP, int8_copy: Path | None = None) -> None:
    """``reader`` exported alone to ``path`` (int8 with ``calibration``, and its int8-weight twin
    at ``int8_copy`` when given), as the manifest's would be."""
    export_reader_onnx(torch, reader, path, crop)
    if calibration is not None:
        quantize(path, calibration_inputs([], calibration)[1], int8_copy)


def onnx_layers(path: Path) -> list[tuple[str, np.ndarray, np.ndarray | None]]:
    """The weighted layers of an exported graph in the order it runs them: (op, weight, bias),
    int8 weights dequantized (``(q - zero) * scale``, per channel), the values the runtime
    computes with. Float and QDQ graphs both read."""
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(path)).graph
    except Exception as e:  # onnx raises its own DecodeError types
        raise ValueError(f"{path}: not an ONNX model ({e})") from e
    const = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    layers: list[tuple[str, np.ndarray, np.ndarray | None]] = []
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and node.input[0] in const:
            q = const[node.input[0]].astype(np.float64)
            scale = const[node.input[1]].astype(np.float64)
            zero = const[node.input[2]].astype(np.float64) if len(node.input) > 2 else np.zeros(1)
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            if scale.size > 1:  # per channel along ``axis``
                shape = [1] * q.ndim
                shape[axis] = scale.size
                scale, zero = scale.reshape(shape), zero.reshape(shape)
            const[node.output[0]] = ((q - zero) * scale).astype(np.float32)
        elif node.op_type in ("Conv", "Gemm"):
            w = const[node.input[1]]
            b = const.get(node.input[2]) if len(node.input) > 2 else None
            if node.op_type == "Gemm" and not any(a.name == "transB" and a.i for a in node.attribute):
                w = w.T
            layers.append((node.op_type, w, b))
    return layers


def _load_folded(torch: Any, net: Any, path: Path, what: str) -> Any:
    """Copy the weighted layers of the graph in ``path`` into ``net``, in the order both run
    them. The export folded each BatchNorm into the convolution before it, so such a BatchNorm
    here passes its input through (mean 0, variance 1 - eps, scale 1) and carries the folded
    bias as its shift; a convolution without one takes the bias itself."""
    mods = list(net.modules())
    slots = [(m, mods[i + 1] if i + 1 < len(mods) and isinstance(mods[i + 1], torch.nn.BatchNorm2d) else None)
             for i, m in enumerate(mods) if isinstance(m, torch.nn.Conv2d | torch.nn.Linear)]
    layers = onnx_layers(path)
    want = ["Gemm" if isinstance(m, torch.nn.Linear) else "Conv" for m, _ in slots]
    if [op for op, _, _ in layers] != want:
        raise ValueError(f"{path}: not a {what} graph ({len(layers)} weighted layers where the {what} "
                         f"has {len(want)})")
    with torch.no_grad():
        for (_, w, b), (layer, bn) in zip(layers, slots, strict=True):
            if tuple(w.shape) != tuple(layer.weight.shape):
                raise ValueError(f"{path}: a layer of shape {tuple(w.shape)} where the {what} has "
                                 f"{tuple(layer.weight.shape)}")
            layer.weight.copy_(torch.from_numpy(np.array(w, np.float32)))
            bias = np.array(b if b is not None else np.zeros(w.shape[0]), np.float32)
            if bn is not None:
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(bias))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            elif layer.bias is not None:
                layer.bias.copy_(torch.from_numpy(bias))
    return net.eval()


def reader_from_onnx(torch: Any, path: Path) -> Any:
    """The reader an exported ``reader.onnx`` holds, as a PyTorch module to train on from there.

    The shipped networks were trained on a machine twice as fast as later ones, and only their
    exported files were kept; starting from them costs minutes where the recipe costs its full
    32. Keep the BatchNorms in eval mode while training it (``freeze_batchnorm``): batch
    statistics would undo the fold."""
    import onnx

    from .nets import Reader

    try:
        props = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    except Exception as e:  # onnx raises its own DecodeError types
        raise ValueError(f"{path}: not an ONNX model ({e})") from e
    if JOINED in props:
        raise ValueError(f"{path}: a joined reader ({props[JOINED]} readers averaged), not one "
                         "reader to train on; start from one of the files it joined")
    return _load_folded(torch, Reader(), path, "reader")


def finder_from_onnx(torch: Any, path: Path) -> Any:
    """The finder an exported ``finder.onnx`` holds (one view or mirror-averaged: the mirror
    runs the same weights), as a PyTorch module to train on; as ``reader_from_onnx``."""
    from .nets import Finder

    return _load_folded(torch, Finder(), path, "finder")


def freeze_batchnorm(torch: Any, module: Any) -> Any:
    """Put every BatchNorm of ``module`` in eval mode (after ``module.train()``): their
    statistics stay; their scale and shift still learn."""
    for m in module.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()
    return module


def export_finder(torch: Any, finder: Any, out_dir: Path, training: dict[str, Any], figures: dict[str, Any],
                  photos: Sequence[np.ndarray] | None = None, long_side: int = FINDER_LONG_SIDE) -> Path:
    """A new finder.onnx behind the reader already in ``out_dir`` (``_swap_in``), its graph
    mirror-averaged when the manifest's is. ``photos`` (uint8, at the finder's scale): int8."""

    def write(tmp: Path, data: dict[str, Any]) -> None:
        flip = bool(data["finder"].get("mirror_averaged", False))
        export_onnx(torch, FinderExport(finder, flip=flip), torch.zeros(1, 3, 320, long_side), tmp, "image",
                    ["heat", "reg"], {"image": {2: "height", 3: "width"}})
        if photos is not None:
            no_crops = np.zeros((0, READER_CROP, READER_CROP, 3), np.uint8)
            quantize(tmp, calibration_inputs(photos, no_crops)[0], int8_twin(tmp))

    return _swap_in(out_dir, "finder", FINDER_FILE, write, training, figures)


EMBED_OUTPUT = "embedding"
EMBED_SUFFIX = "_embed"


def embed_twin(path: Path) -> Path:
    """Where a reader's embedding twin lies: ``reader.onnx`` -> ``reader_embed.onnx`` beside it."""
    return path.with_name(path.name.removesuffix(".onnx") + EMBED_SUFFIX + ".onnx")


def embedding_model(reader: Path, out: Path) -> dict[str, str]:
    """Write ``out``: the reader graph with a third output, the pooled feature its last layer
    reads (``EMBED_OUTPUT``, [N, 128]). A separate file, so that the shipped reader, and every
    scan without a deck, stay byte-for-byte what they were; a deck reads its cards by this
    feature (``zipai.vision.deck``). Returns the reader entry's ``embed_file``."""
    import onnx
    from onnx import helper

    model = onnx.load(str(reader))
    graph = model.graph
    pools = [n for n in graph.node if n.op_type in ("ReduceMean", "GlobalAveragePool")]
    if not pools:
        raise ValueError(f"{reader}: no pooling node to take the embedding from")
    pooled = pools[-1].output[0]
    graph.node.append(helper.make_node("Flatten", [pooled], [EMBED_OUTPUT], axis=1))
    graph.output.append(helper.make_tensor_value_info(EMBED_OUTPUT, onnx.TensorProto.FLOAT, ["n", "d"]))
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    return {"file": out.name, "sha256": sha256(out), "output": EMBED_OUTPUT, "of": sha256(reader)}


def add_embedding(out_dir: Path) -> None:
    """Give the manifest in ``out_dir`` its reader's embedding twin (``embedding_model``): run
    after every export, and once on the shipped files (``python -m zipai.models.export``)."""
    path = out_dir / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    reader = out_dir / data["reader"]["file"]
    data["reader"]["embed_file"] = embedding_model(reader, embed_twin(reader))
    twin = data["reader"].get("int8_file")
    if isinstance(twin, dict):  # the int8-weight twin gets its own: as fast as it, same outputs
        path8 = out_dir / twin["file"]
        twin["embed_file"] = embedding_model(path8, embed_twin(path8))
    write_manifest(path, data)


if __name__ == "__main__":
    add_embedding(models_dir())
