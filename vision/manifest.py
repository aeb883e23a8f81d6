"""The shipped model on disk: the manifest (checked), its settings and its network files."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zipai.engine import ZipaiError
from zipai.engine.files import read_file

from .config import Config
from .errors import ModelError
from .files import models_dir

MAX_MANIFEST_BYTES = 1 << 20
MAX_MODEL_BYTES = 256 << 20  # the shipped networks are a few MB each


def default_manifest() -> Path:
    return models_dir() / "manifest.json"


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the model files are (``data``, models/manifest.json) and how to run them (``config``)."""

    path: Path
    data: dict[str, Any]
    config: Config

    @property
    def has_int8_files(self) -> bool:
        """Whether both networks also come as files with their weights stored as int8 (each
        entry's ``int8_file``): the same networks and outputs, and where fused uint8 x int8 kernels
        are exact (``session.signed_kernels_exact``) about twice as fast."""
        return all(isinstance(self.data[p].get("int8_file"), dict) for p in ("finder", "reader"))

    @property
    def signed_weights(self) -> bool:
        return self.config.signed_weights

    def embed_spec(self, int8_file: bool = False) -> dict[str, Any] | None:
        """The manifest's entry for the reader's embedding twin (``reader.embed_file``, or with
        ``int8_file`` ``reader.int8_file.embed_file``), None where the model has none."""
        spec = self.data["reader"]
        if int8_file:
            spec = spec.get("int8_file") if isinstance(spec, dict) else None
        spec = spec.get("embed_file") if isinstance(spec, dict) else None
        return spec if isinstance(spec, dict) else None

    def model_bytes(self, part: str, int8_file: bool = False, embed: bool = False) -> bytes:
        """The ONNX bytes of ``finder`` or ``reader`` (with ``int8_file``, of its file with int8
        weights; with ``embed``, of the reader's embedding twin: the same network and outputs
        with the pooled feature as a third, which decks read), refused if the SHA-256 differs."""
        spec = self.data[part]
        if int8_file:
            spec = spec.get("int8_file")
            if not isinstance(spec, dict) or "file" not in spec or "sha256" not in spec:
                raise ModelError(f"{self.path}: {part} has no int8_file with a file and its sha256",
                                 code="bad_model")
        if embed:
            spec = self.embed_spec(int8_file) if part == "reader" else None
            if spec is None or "file" not in spec or "sha256" not in spec:
                where = "reader.int8_file" if int8_file else "reader"
                raise ModelError(f"{self.path}: this model has no {where}.embed_file, which decks need "
                                 "(python -m zipai.models.export adds it)", code="no_model")
        name = spec.get("file") if isinstance(spec, dict) else None
        if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
            # the manifest is data: it names a file beside itself, never a path to open elsewhere
            raise ModelError(f"{self.path}: {part} must name a model file in the manifest's folder, "
                             f"got {name!r}", code="bad_model")
        f = self.path.parent / name
        if not f.exists():
            raise ModelError(f"{f}: model file missing (reinstall zipai-scorer or run zipai train)",
                             code="no_model")
        try:
            blob = read_file(f, MAX_MODEL_BYTES, "model file")
        except ZipaiError as exc:
            raise ModelError(str(exc), code="bad_model") from None
        digest = hashlib.sha256(blob).hexdigest()
        if digest != spec.get("sha256"):
            raise ModelError(f"{f}: SHA-256 {digest[:12]}… does not match the manifest "
                             f"({str(spec.get('sha256'))[:12]}…); the file is damaged or was replaced",
                             code="bad_model")
        return blob


def load_manifest(path: str | Path | None = None) -> Manifest:
    p = Path(path) if path is not None else default_manifest()
    if not p.exists():
        raise ModelError(f"{p}: no model manifest (run zipai train, or reinstall)", code="no_model")
    try:
        data = json.loads(read_file(p, MAX_MANIFEST_BYTES, "model manifest").decode("utf-8"))
    except ZipaiError as exc:
        raise ModelError(f"unreadable model manifest: {exc}", code="bad_model") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ModelError(f"{p}: unreadable model manifest ({str(exc)[:200]})", code="bad_model") from None
    if not isinstance(data, dict):
        raise ModelError(f"{p}: a model manifest is a JSON object", code="bad_model")
    for key in ("finder", "reader", "normalise", "classes"):
        if key not in data:
            raise ModelError(f"{p}: model manifest lacks {key!r}", code="bad_model")
    return Manifest(p, data, Config.from_json(data, str(p)))
