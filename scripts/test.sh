#!/usr/bin/env bash
# Installs everything the tests need, then runs the whole test suite and ruff.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --all
export SDL_VIDEODRIVER=offscreen KIVY_NO_ARGS=1 KIVY_NO_CONSOLELOG=1
unset DISPLAY
.venv/bin/python -m ruff check .
# two workers, a test file to each at a time: the suite's Kivy, model and ledger tests are
# independent processes' work, so on two cores the run takes about half as long
# a run that hangs (a worker lost mid-test) ends after 40 minutes with a failure, not at CI's limit
timeout --kill-after=60 2400 .venv/bin/python -m pytest -n "${ZIPAI_TEST_WORKERS:-2}" --dist loadfile "$@"
