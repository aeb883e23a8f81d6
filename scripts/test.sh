#!/usr/bin/env bash
# Installs everything the tests need, then runs the whole test suite and ruff.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --all
export SDL_VIDEODRIVER=offscreen KIVY_NO_ARGS=1 KIVY_NO_CONSOLELOG=1
unset DISPLAY
.venv/bin/python -m ruff check .
.venv/bin/python -m pytest "$@"
