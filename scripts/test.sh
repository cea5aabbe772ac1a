#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test: GoogleTest (core), QtTest
# (ui, offscreen), the short loader fuzz run and the exporter's pytest golden parity with PyTorch.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 900
