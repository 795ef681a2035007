# shellcheck shell=bash
# Sourced by the installed-package tests. build_outside_project BUILD_DIR PROJECT_DIR WORK:
# installs the build tree into WORK/prefix (what `cmake --install` gives a user) and builds
# PROJECT_DIR, which knows csumtune only through find_package(csumtune), into WORK/build.
build_outside_project() {
  local build=$1 project=$2 work=$3
  cmake --install "$build" --prefix "$work/prefix" >/dev/null
  cmake -S "$project" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  cmake --build "$work/build" -j2 >/dev/null
}
