#!/usr/bin/env bash
# Installs what fxmem needs on Debian 12 (as root): compilers, Qt 6, QCustomPlot, nlohmann_json,
# GoogleTest, Google Benchmark, clang (fuzzer), ccache (rebuilds), desktop-file-utils (the desktop
# entry check), clang-format (the style check), and a Python venv (.venv) with torch and the exporter.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(build-essential cmake pkg-config qt6-base-dev qt6-svg-dev libqcustomplot-dev nlohmann-json3-dev
      libgtest-dev libbenchmark-dev clang libclang-rt-14-dev libgl1-mesa-dev python3 python3-venv
      ccache desktop-file-utils clang-format)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
py=${FXMEM_PYTHON:-python3}
command -v python3.11 >/dev/null 2>&1 && py=${FXMEM_PYTHON:-python3.11}
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
if ! .venv/bin/python -c 'import torch, pytest, mypy, transformers, triton, fxmem_export' >/dev/null 2>&1; then
  .venv/bin/pip install -q --upgrade pip >/dev/null
  # torch==2.13.0 is the CPU build that lies on this machine's disk; any other asks for gigabytes.
  # mypy: the exporter_mypy test (strict; pinned, as a newer mypy may find new errors).
  # transformers: exporter/tests/test_hf_models.py builds its models from configs (no download).
  # triton: Inductor's Triton code generation for program=True with target="cuda" (no GPU needed).
  .venv/bin/pip install -q torch==2.13.0 numpy pytest mypy==2.4.1 transformers==5.25.0 triton==3.9.0 "setuptools>=70.1"  # 70.1+: builds wheels itself
  .venv/bin/pip install -q -e exporter
fi
