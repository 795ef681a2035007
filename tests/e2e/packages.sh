# shellcheck shell=bash
# Debian packages and kernel trees for the end-to-end scripts (and scripts/fuzz.sh); sources
# lib.sh, whose skip it uses.
#   ensure_packages LOG_PREFIX PACKAGE...
# installs what is missing when run as root (CI), and otherwise skips (exit 77; in CI, where
# CSUMTUNE_CI=1 and a skip would hide a broken test, a FAIL and exit 1).
#   apt_get ARG...
# apt-get under one lock of our own: tests that install run side by side, and apt-get itself
# gives up at once when another holds dpkg's or the lists' lock.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
apt_get() {
  flock -o /var/lock/csumtune-apt.lock env DEBIAN_FRONTEND=noninteractive apt-get "$@"
}
ensure_packages() {
  local E2E_NAME=$1  # the name skip and log say
  shift
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  [[ $(id -u) -eq 0 ]] || skip "needs ${missing[*]} (run as root to install them)"
  log "installing ${missing[*]}"
  if ! apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    apt_get update -qq >/dev/null 2>&1
    apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
      die "apt-get install ${missing[*]} failed"
  fi
}

# The parts of a Debian linux-source-VERSION tree the tests read (its Makefile,
# arch/x86/lib/csum-partial_64.c and csum-copy_64.S, scripts/checkpatch.pl), extracted once
# into a cache outside the checkout; prints the tree's top directory. VERSION defaults to 6.1 (the tree the kernel tests
# build); 6.12 carries Linux v6.8's csum_partial algorithm. Needs linux-source-VERSION and
# xz-utils.
linux_source_tree() {
  local version=${1:-6.1}
  local cache=${CSUMTUNE_KERNEL_CACHE:-/var/cache/csumtune-kernel}/linux-source-$version
  local top=$cache/linux-source-$version
  # arch/x86/lib/Makefile for a patch of several bodies; checkpatch.pl and the word lists it
  # reads, for the patch test's style check.
  local files=(Makefile arch/x86/lib/csum-partial_64.c arch/x86/lib/csum-copy_64.S
               arch/x86/lib/Makefile
               scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch)
  mkdir -p "$cache"
  # Tests run in parallel: one extracts while the others wait, none reads a half-written file.
  (
    flock 9
    for f in "${files[@]}"; do
      [[ -f $top/$f ]] && continue
      tar -xJf "/usr/src/linux-source-$version.tar.xz" -C "$cache" "${files[@]/#/linux-source-$version/}" ||
        { echo "cannot extract the tree's files from linux-source-$version" >&2; exit 1; }
      break
    done
  ) 9>"$cache.lock" || return 1
  echo "$top"
}

# Debian's linux-source-VERSION unpacked once into CACHE/linux-source-VERSION (again when the
# package changes), with a pristine copy in CACHE/pristine of the files a patch touches, so
# every patch starts from the tree as shipped; an old tree's build folder (CACHE/build) goes
# with it. The caller holds CACHE's lock. Prints why and returns 1 when it cannot.
#   unpack_kernel_tree VERSION CACHE LOG_PREFIX
unpack_kernel_tree() {
  local version=$1 cache=$2 prefix=$3
  local tarball=/usr/src/linux-source-$version.tar.xz src=$cache/linux-source-$version
  local stamp
  stamp="$(stat -c '%s-%Y' "$tarball")" || return 1
  if [[ $(cat "$cache/unpacked" 2>/dev/null) != "$stamp" || ! -s $cache/pristine/csum-copy_64.S ]]; then
    echo "$prefix: unpacking $tarball into $cache"
    rm -rf "$src" "$cache/build" "$cache/pristine" "$cache/unpacked"
    tar -xJf "$tarball" -C "$cache" || { echo "$prefix: cannot unpack $tarball"; return 1; }
    mkdir -p "$cache/pristine"
    cp "$src"/arch/x86/lib/{csum-partial_64.c,csum-copy_64.S,Makefile} "$cache/pristine/"
    echo "$stamp" >"$cache/unpacked"
  fi
}

# The tree of unpack_kernel_tree as shipped again: what a patch added or left goes.
#   restore_kernel_tree VERSION CACHE
restore_kernel_tree() {
  local lib=$2/linux-source-$1/arch/x86/lib
  rm -f "$lib"/csum-partial_64.S "$lib"/csum-select_64.c "$lib"/*.orig "$lib"/*.rej
  cp "$2"/pristine/{csum-partial_64.c,csum-copy_64.S,Makefile} "$lib/"
}
