"""python-for-android build hook (``p4a.hook`` in buildozer.spec): the app's FileProvider.

The system camera writes its photo, and the share sheet's apps (WeChat…) read the settlement
picture, through ``content://`` URIs that only a FileProvider hands out (Android 7+ refuses
``file://``). p4a renders AndroidManifest.xml from its own template, so this hook adds the
provider, authority ``<package>.fileprovider`` (what ``media.AndroidMedia`` asks for), and the
paths resource naming the app's private files folder (``ANDROID_PRIVATE``), under which the
photos and settlements live.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PATHS_RESOURCE = "zipai_file_paths"
PATHS_XML = """<?xml version="1.0" encoding="utf-8"?>
<paths>
    <files-path name="app_files" path="." />
</paths>
"""


def provider_xml(package: str) -> str:
    return (f'<provider android:name="androidx.core.content.FileProvider" '
            f'android:authorities="{package}.fileprovider" android:exported="false" '
            f'android:grantUriPermissions="true">'
            f'<meta-data android:name="android.support.FILE_PROVIDER_PATHS" '
            f'android:resource="@xml/{PATHS_RESOURCE}" /></provider>')


def add_file_provider(manifest: str, package: str) -> str:
    """The manifest with our provider inside <application>; unchanged when one already serves
    ``<package>.fileprovider``."""
    if f'android:authorities="{package}.fileprovider"' in manifest:
        return manifest
    end = manifest.rfind("</application>")
    if end < 0:
        raise ValueError("AndroidManifest.xml has no <application> element")
    return manifest[:end] + "    " + provider_xml(package) + "\n    " + manifest[end:]


def before_apk_assemble(toolchain: Any) -> None:
    """p4a calls this after rendering the manifest, before gradle builds the APK."""
    dist = Path(toolchain._dist.dist_dir)
    main = dist / "src" / "main"
    manifest = main / "AndroidManifest.xml"
    text = manifest.read_text(encoding="utf-8")
    package = text.split('package="', 1)[1].split('"', 1)[0] if 'package="' in text else \
        toolchain.args.package
    manifest.write_text(add_file_provider(text, package), encoding="utf-8")
    res = main / "res" / "xml"
    res.mkdir(parents=True, exist_ok=True)
    (res / f"{PATHS_RESOURCE}.xml").write_text(PATHS_XML, encoding="utf-8")
