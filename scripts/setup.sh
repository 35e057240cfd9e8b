#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what phalanx needs on a fresh Debian machine: system packages (when absent) and a
# project virtual environment (.venv) with the Python packages from PyPI. Idempotent and quiet
# when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES="libexpat1-dev liblapack-dev libqhull-dev libmpfr-dev clang clang-format \
libclang-rt-14-dev libvulkan-dev libvulkan-volk-dev glslc spirv-tools mesa-vulkan-drivers \
vulkan-validationlayers"

missing=""
for p in $DEB_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "setup: installing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "setup: missing Debian packages. Run as root:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements-stamp
if [ ! -f "$stamp" ] || [ requirements-dev.txt -nt "$stamp" ]; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -r requirements-dev.txt
  touch "$stamp"
fi
