"""Errors of the vision path: all ValueErrors with a short machine code, like the engine's."""

from __future__ import annotations


class VisionError(ValueError):
    """Something about a photo or the model that the user can act on."""

    def __init__(self, message: str, code: str = "vision") -> None:
        super().__init__(message)
        self.code = code


class ImageError(VisionError):
    """The input is not a usable photo (missing, not an image, truncated, empty)."""


class ModelError(VisionError):
    """The shipped model is missing, altered (SHA-256 mismatch) or does not load."""
