"""The camera, where there is one: Kivy's Camera widget (Android's provider, or a desktop webcam)
and the flash through the Android camera parameters. Without a camera the capture screen offers
file picking alone."""

from __future__ import annotations

from typing import Any

from kivy.utils import platform


def request_permission() -> None:
    """Android 6+ asks the user for the camera at run time (the spec declares it as well)."""
    if platform != "android":
        return
    try:
        from android.permissions import Permission, request_permissions  # type: ignore[import-not-found]
    except ImportError:
        return
    request_permissions([Permission.CAMERA])


def open_camera(resolution: tuple[int, int]) -> Any:
    """A Camera widget, not yet playing, or None when no provider or device answers."""
    request_permission()
    try:
        from kivy.uix.camera import Camera

        cam = Camera(play=False, resolution=resolution, index=0)
    except Exception:
        return None
    if getattr(cam, "_camera", None) is None:
        return None
    return cam


def set_flash(camera: Any, on: bool) -> bool:
    """Torch on or off on Android (camera parameters through pyjnius); False where there is none."""
    if camera is None or platform != "android":
        return False
    core = getattr(camera, "_camera", None)
    android_cam = getattr(core, "_android_camera", None)
    if android_cam is None:
        return False
    try:
        params = android_cam.getParameters()
        modes = params.getSupportedFlashModes()
        if modes is None or not modes.contains("torch"):
            return False
        params.setFlashMode("torch" if on else "off")
        android_cam.setParameters(params)
    except Exception:
        return False
    return on
