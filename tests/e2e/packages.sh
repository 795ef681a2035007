# Sourced by the end-to-end scripts that need Debian packages beyond the build's:
#   ensure_packages LOG_PREFIX PACKAGE...
# installs what is missing when run as root (CI), and otherwise exits 77 (skipped) — or 1 in
# CI (CSUMTUNE_CI=1, set by .ci/run), where a skip would hide a broken test.
ensure_packages() {
  local prefix=$1
  shift
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if [[ $(id -u) -ne 0 ]]; then
    if [[ ${CSUMTUNE_CI:-0} == 1 ]]; then
      echo "$prefix: FAIL: needs ${missing[*]} and cannot install them (not root) in CI"
      exit 1
    fi
    echo "$prefix: SKIP: needs ${missing[*]} (run as root to install them)"
    exit 77
  fi
  echo "$prefix: installing ${missing[*]}"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
      { echo "$prefix: apt-get install ${missing[*]} failed"; exit 1; }
  fi
}

# The parts of Debian's linux-source-6.1 tree the kernel-tree tests read (its Makefile and
# arch/x86/lib/csum-partial_64.c), extracted once into a cache outside the checkout; prints
# the tree's top directory. Needs the linux-source-6.1 and xz-utils packages.
linux_source_tree() {
  local cache=${CSUMTUNE_KERNEL_CACHE:-/var/cache/csumtune-kernel}/linux-source-6.1
  local top=$cache/linux-source-6.1
  if [[ ! -f $top/arch/x86/lib/csum-partial_64.c || ! -f $top/arch/x86/lib/csum-copy_64.S ||
        ! -f $top/Makefile ]]; then
    mkdir -p "$cache"
    tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cache" linux-source-6.1/Makefile \
      linux-source-6.1/arch/x86/lib/csum-partial_64.c linux-source-6.1/arch/x86/lib/csum-copy_64.S ||
      { echo "cannot extract the tree's files" >&2; return 1; }
  fi
  echo "$top"
}
