#!/usr/bin/env bash
# Installs every Debian package Zipai Scorer needs: CJK fonts for card rendering
# and the app, Mesa/EGL for headless Kivy, the libraries Kivy's SDL2 wheels load, and
# Chromium for the table page's browser tests.
# Safe to run twice; run as root or with sudo available.
set -euo pipefail
PKGS=(
  # card faces and app text (datasets/fonts.py lists which file goes to which split)
  fonts-arphic-ukai fonts-arphic-uming fonts-lxgw-wenkai fonts-wqy-microhei
  fonts-wqy-zenhei fonts-noto-cjk
  # brush-style faces (Japanese brush fonts carry 參 貳 陸 壹 拾 and small numerals)
  fonts-kouzan-mouhitsu fonts-aoyagi-soseki fonts-kiloji
  # more faces for the reader's extra training scenes (datasets/fonts.py: READER)
  fonts-cwtex-kai fonts-cwtex-fs fonts-cwtex-ming fonts-cwtex-heib fonts-hanazono
  fonts-ipaexfont-mincho fonts-noto-cjk-extra fonts-umeplus fonts-seto fonts-klee
  fonts-motoya-l-cedar
  # still more for them, font split wide (datasets/fonts.py: MORE)
  fonts-cns11643-kai fonts-unfonts-core fonts-ipamj-mincho fonts-sawarabi-mincho fonts-mplus
  fonts-nanum fonts-konatu fonts-motoya-l-maruberi
  # and eight more, font splits select and wider (datasets/fonts.py: SELECT)
  fonts-aoyagi-kouzan-t fonts-yusei-magic fonts-dejima-mincho fonts-unfonts-extra
  fonts-morisawa-bizud-mincho fonts-morisawa-bizud-gothic fonts-smiley-sans
  # faces for choosing thresholds only (datasets/fonts.py: TUNE)
  fonts-horai-umefont fonts-vlgothic fonts-baekmuk
  fontconfig
  # headless Kivy: real pixels through Mesa
  libgl1-mesa-dri libegl1 libgles2 libgl1 xvfb xauth
  libmtdev1 libsdl2-2.0-0 libsdl2-image-2.0-0 libsdl2-ttf-2.0-0 libsdl2-mixer-2.0-0
  # the table page's browser tests (zipai serve): headless Chromium, driven by Playwright
  chromium
  # SQLite command-line tool for inspecting ledgers by hand
  sqlite3
  # a virtual environment for the project (Debian splits venv out of python3)
  python3-venv
)
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
fc-cache -f >/dev/null 2>&1 || true
echo "system packages ready (${#PKGS[@]} checked, ${#missing[@]} installed)"
