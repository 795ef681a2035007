#!/usr/bin/env bash
# Builds and runs every test: unit suites, end-to-end scripts, the installed-package check.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build -j"$(nproc)" --output-on-failure --timeout 1500
