"""ONNX export and the manifest that the runtime checks (classes, input sizes, normalisation,
SHA-256 of each file, training data seed and figures)."""

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
from zipai.vision.preprocess import MEAN, STD, normalise

from .manifest import write_manifest
from .nets import FINDER_CLASSES, FINDER_STRIDE, READER_CLASSES, FinderExport, ReaderExport

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
               figures: dict[str, Any], long_side: int = 416, crop: int = 48, margin: float = 1.3,
               flip: bool = True, calibration: tuple[Sequence[np.ndarray], np.ndarray] | None = None) -> Path:
    """Write finder.onnx, reader.onnx and manifest.json into ``out_dir``; returns the manifest.
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
        int8 = {"format": WEIGHT_FORMAT, "weights": "uint8",
                "calibration": f"{len(finder_in)} val photos, {len(calibration[1])} val crops"}
    manifest = {
        "format": 1,
        "classes": list(READER_CLASSES),
        "finder": {"file": FINDER_FILE, "sha256": sha256(fpath), "input": "image",
                   "classes": list(FINDER_CLASSES), "long_side": long_side, "multiple": 32,
                   "stride": FINDER_STRIDE, "threshold": 0.3, "mirror_averaged": flip,
                   "outputs": {"heat": "sigmoid heatmap, non-peaks zeroed",
                               "reg": "log w, log h (stride cells), dx, dy"}},
        "reader": {"file": READER_FILE, "sha256": sha256(rpath), "input": "crops", "size": crop,
                   "margin": margin, "none_threshold": 0.5},
        "normalise": {"mean": list(MEAN), "std": list(STD), "layout": "NCHW RGB, (x/255 - mean) / std"},
        "color": {"red_threshold": RED_THRESHOLD},
        "postprocess": {"drop_far_ends": True},
        "int8": int8,
        "training": training,
        "figures": figures,
    }
    if int8 is not None:
        for part, path in (("finder", fpath), ("reader", rpath)):
            manifest[part]["int8_file"] = int8_entry(int8_twin(path))
    old = out_dir / "manifest.json"
    if old.exists():  # keep measured figures and calibrations that still apply
        try:
            prev = json.loads(old.read_text(encoding="utf-8"))
            if "color" in prev:
                manifest["color"] = prev["color"]
        except (OSError, json.JSONDecodeError):
            pass
    write_manifest(old, manifest)
    return old


def _swap_in(out_dir: Path, part: str, name: str, write: Callable[[Path, dict[str, Any]], None],
             training: dict[str, Any], figures: dict[str, Any]) -> Path:
    """Write one network anew behind the other one already in ``out_dir`` (``write`` makes
    the file): its manifest entry gets the new hash, ``training`` and ``figures`` are merged
    in, and every other setting stays. The file is written beside the old one and renamed over
    it, the manifest last: a run stopped in between leaves a network whose hash the manifest
    refuses at load, never a half-written file."""
    manifest = out_dir / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    tmp = out_dir / f"new.{name}"
    twin = int8_twin(tmp)  # the int8-weight twin, when ``write`` makes one
    twin.unlink(missing_ok=True)
    write(tmp, data)
    data[part]["sha256"] = sha256(tmp)
    data.setdefault("training", {}).update(training)
    data.setdefault("figures", {}).update(figures)
    if twin.exists():
        data[part]["int8_file"] = int8_entry(twin.replace(int8_twin(out_dir / name)))
    else:  # the old network's twin must not stand in for the new one
        data[part].pop("int8_file", None)
    tmp.replace(out_dir / name)
    write_manifest(manifest, data)
    return manifest


def export_reader(torch: Any, reader: Any, out_dir: Path, training: dict[str, Any], figures: dict[str, Any],
                  calibration: np.ndarray | None = None, crop: int = 48) -> Path:
    """A new reader.onnx behind the finder already in ``out_dir`` (``_swap_in``).
    ``calibration`` (uint8 crops): int8."""

    def write(tmp: Path, data: dict[str, Any]) -> None:
        export_reader_file(torch, reader, tmp, calibration, crop, int8_twin(tmp))

    return _swap_in(out_dir, "reader", READER_FILE, write, training, figures)


JOINED = "zipai_joined_readers"  # metadata key of a joined reader: how many readers it averages


def join_readers(parts: Sequence[Path], out: Path) -> None:
    """One reader graph that runs every reader in ``parts`` on the same crops and averages them:
    the class probabilities, and the down directions summed and made unit again. Readers
    trained apart misread different crops of a face none of them has seen, and the runtime
    reads the joined file as it reads one reader (same input, same two outputs)."""
    import onnx
    from onnx import compose, helper

    if len(parts) < 2:
        raise ValueError("joining readers needs at least two reader files")
    graphs = []
    for k, path in enumerate(parts):
        try:
            model = onnx.load(str(path))
        except Exception as e:  # onnx raises its own DecodeError types
            raise ValueError(f"{path}: not an ONNX model ({e})") from e
        if any(p.key == JOINED for p in model.metadata_props):
            raise ValueError(f"{path}: already a joined reader; join the readers it was made of")
        g = model.graph
        if len(g.input) != 1 or len(g.output) != 2:
            raise ValueError(f"{path}: not a reader graph (one input of crops, probabilities and "
                             f"the down direction out)")
        if k == 0:
            first = model
        model = compose.add_prefix(model, prefix=f"r{k}_")
        for node in model.graph.node:  # every reader reads the one shared input
            node.input[:] = [first.graph.input[0].name if x == model.graph.input[0].name else x
                             for x in node.input]
        graphs.append(model.graph)
    n = len(graphs)
    nodes = [node for g in graphs for node in g.node]
    inits = [t for g in graphs for t in g.initializer]
    inits += [helper.make_tensor("join_share", onnx.TensorProto.FLOAT, [], [1.0 / n]),
              helper.make_tensor("join_eps", onnx.TensorProto.FLOAT, [], [1e-6])]
    probs, down = first.graph.output[0].name, first.graph.output[1].name
    nodes += [
        helper.make_node("Sum", [g.output[0].name for g in graphs], ["join_probs_sum"]),
        helper.make_node("Mul", ["join_probs_sum", "join_share"], [probs]),
        helper.make_node("Sum", [g.output[1].name for g in graphs], ["join_down_sum"]),
        helper.make_node("ReduceL2", ["join_down_sum"], ["join_down_norm"], axes=[1], keepdims=1),
        helper.make_node("Max", ["join_down_norm", "join_eps"], ["join_down_safe"]),
        helper.make_node("Div", ["join_down_sum", "join_down_safe"], [down]),
    ]
    graph = helper.make_graph(nodes, "joined_readers", [first.graph.input[0]], list(first.graph.output),
                              inits, value_info=[v for g in graphs for v in g.value_info])
    joined = helper.make_model(graph, opset_imports=first.opset_import)
    joined.ir_version = first.ir_version
    helper.set_model_props(joined, {JOINED: str(n)})
    onnx.checker.check_model(joined)
    onnx.save(joined, str(out))


def export_reader_file(torch: Any, reader: Any, path: Path, calibration: np.ndarray | None = None,
                       crop: int = 48, int8_copy: Path | None = None) -> None:
    """``reader`` exported alone to ``path`` (int8 with ``calibration``, and its int8-weight twin
    at ``int8_copy`` when given), as the manifest's would be."""
    export_reader_onnx(torch, reader, path, crop)
    if calibration is not None:
        quantize(path, calibration_inputs([], calibration)[1], int8_copy)


def join_into(out_dir: Path, partner: bytes, part: Path, training: dict[str, Any]) -> Path:
    """A new reader.onnx behind the finder already in ``out_dir`` (``_swap_in``): the exported
    reader ``partner`` (its bytes, read before anything was written, so it may have been this
    very file) joined with the exported reader ``part`` (``join_readers``)."""

    def write(tmp: Path, data: dict[str, Any]) -> None:
        first = tmp.with_name("new.partner.onnx")
        try:
            first.write_bytes(partner)
            join_readers([first, part], tmp)
            unsigned_weights(tmp)  # a partner exported before weights were stored as uint8
        finally:
            first.unlink(missing_ok=True)

    return _swap_in(out_dir, "reader", READER_FILE, write, training, {})


def reader_predictions(path: Path, crops: np.ndarray, batch: int = 1000) -> np.ndarray:
    """The class each uint8 crop [N, H, W, 3] is read as by the exported reader in ``path``, as
    the runtime runs it (int8, joined or not)."""
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    return np.concatenate([sess.run(None, {name: normalise(crops[i:i + batch])})[0].argmax(1)
                           for i in range(0, len(crops), batch)]) if len(crops) else np.zeros(0, np.int64)


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
                         "reader to train on; start from one of the files it joined (a joining "
                         "run keeps its own as reader_part.onnx in its --runs)")
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
                  photos: Sequence[np.ndarray] | None = None, long_side: int = 416) -> Path:
    """A new finder.onnx behind the reader already in ``out_dir`` (``_swap_in``), its graph
    mirror-averaged when the manifest's is. ``photos`` (uint8, at the finder's scale): int8."""

    def write(tmp: Path, data: dict[str, Any]) -> None:
        flip = bool(data["finder"].get("mirror_averaged", False))
        export_onnx(torch, FinderExport(finder, flip=flip), torch.zeros(1, 3, 320, long_side), tmp, "image",
                    ["heat", "reg"], {"image": {2: "height", 3: "width"}})
        if photos is not None:
            quantize(tmp, calibration_inputs(photos, np.zeros((0, 48, 48, 3), np.uint8))[0], int8_twin(tmp))

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
    add_embedding(Path(__file__).resolve().parent)
