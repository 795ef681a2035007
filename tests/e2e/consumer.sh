#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds an outside CMake project that
# knows csumtune only through find_package(csumtune); then runs it.
set -euo pipefail
BUILD=${1:?usage: consumer.sh BUILD_DIR CONSUMER_SOURCE_DIR}
SOURCE=${2:?}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/outside-project.sh"
work=$(tmpdir)
build_outside_project "$BUILD" "$SOURCE" "$work"
check "the outside project, built against the installed package, runs" "$work/build/consumer"
finish
