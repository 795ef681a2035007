#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds an outside CMake project that
# knows csumtune only through find_package(csumtune); then runs it.
set -euo pipefail
BUILD=${1:?usage: consumer.sh BUILD_DIR CONSUMER_SOURCE_DIR}
SOURCE=${2:?}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
cmake -S "$SOURCE" -B "$WORK/build" -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
cmake --build "$WORK/build" -j2 >/dev/null
"$WORK/build/consumer"
