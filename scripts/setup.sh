#!/usr/bin/env bash
# Sets up Zipai Scorer on a fresh machine with Python 3.11 and apt: system packages, then a
# virtual environment in .venv with the project installed (editable).
#   bash scripts/setup.sh            runtime only (score, scan, ledger)
#   bash scripts/setup.sh --all      plus the app (Kivy), training (torch), the table page
#                                    (zipai serve) and test tools
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=""
if [ "${1:-}" = "--all" ]; then EXTRAS="[dev,app,train,serve]"; fi
bash scripts/install-system-packages.sh
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".${EXTRAS}"
echo "ready: .venv/bin/zipai --help"
