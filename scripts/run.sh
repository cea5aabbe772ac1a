#!/usr/bin/env bash
# Installs what is missing, builds, and starts fxmem (on the bundled example when no file is given).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
exec build/bin/fxmem "$@"
