#!/usr/bin/env bash
# Installs what is missing, builds, and starts fxmem (on the bundled example when no file is given).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh fxmem fxmem-cli # the app and the CLI only: the tests build in test.sh
exec build/bin/fxmem "$@"
