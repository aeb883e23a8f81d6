"""Photo -> cards -> engine input: decode, finder + reader inference (onnxruntime, numpy,
Pillow only), columns and groups, doubts. ``zipai scan`` is ``zipai.vision.cli:main``."""

from .config import Config
from .decode import Decoded, decode, load
from .detection import Detection, Finds
from .detector import Detected, Detector
from .errors import ImageError, ModelError, VisionError
from .layout import Assembled, Column, Doubt, DoubtKind, Params, assemble, columns, propose_states
from .manifest import Manifest, load_manifest
from .scan import Scan, overlay, rescore, scan_bytes, scan_decoded, scan_file
from .session import OrtSession, Session, SessionFactory

__all__ = [
    "Assembled", "Column", "Config", "Decoded", "Detected", "Detection", "Detector", "Doubt", "DoubtKind",
    "Finds", "ImageError", "Manifest", "ModelError", "OrtSession", "Params", "Scan", "Session",
    "SessionFactory",
    "VisionError", "assemble", "columns", "decode", "load", "load_manifest", "overlay", "propose_states",
    "rescore", "scan_bytes", "scan_decoded", "scan_file",
]
