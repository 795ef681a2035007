#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds an outside CMake project that
# knows csumtune only through find_package(csumtune); then runs it.
set -euo pipefail
BUILD=${1:?usage: consumer.sh BUILD_DIR CONSUMER_SOURCE_DIR}
SOURCE=${2:?}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/outside-project.sh"
build_outside_project "$BUILD" "$SOURCE" "$WORK"
"$WORK/build/consumer"
