# shellcheck shell=bash
# The end-to-end scripts' helpers, sourced first by every tests/e2e/*.sh (the guest's
# kernel-tree/init.sh excepted: it runs under busybox inside qemu). packages.sh, beside it,
# sources it too (Debian packages and kernel trees; scripts/fuzz.sh uses it).
#
#   source "$(dirname "$0")/lib.sh"
#
# Checks: each prints one "ok:   WHAT" or "FAIL: WHAT ..." line and is counted; a FAIL never
# stops the script (it returns 1, for `|| continue`), the summary says how many failed.
#   check WHAT COMMAND [ARG...]     COMMAND exits 0
#   expect [OPTION...] STATUS [TEXT] -- COMMAND [ARG...]
#                                   COMMAND exits STATUS and its stderr (stdout dropped)
#                                   contains TEXT (none or "": any); options:
#       --as WHAT                   the check's name (default: the command line)
#       --output                    match stdout and stderr together instead
#       --message                   the text matched must not be empty (a message was given)
#       --lacks TEXT                it must not contain TEXT (repeatable)
#                                   The text is left in $last_output, the status in $last_status.
#   pass WHAT / fail WHAT           a verdict the script reached itself
#   contains TEXT PART...           a predicate (for check): TEXT has every PART; says which not
#   lacks TEXT PART...              a predicate (for check): TEXT has none of the PARTs
#   finish                          the summary; exit 1 when a check failed, else 0. A script
#                                   that exits 0 without it after a failed check exits 1.
# Messages and early ends:
#   log MESSAGE...                  "NAME: MESSAGE" (NAME: $E2E_NAME, the script's name)
#   die MESSAGE...                  "NAME: FAIL: MESSAGE", exit 1 (the test cannot go on)
#   skip REASON                     "NAME: SKIP: REASON", exit 77 (CTest's SKIP_RETURN_CODE);
#                                   in CI (CSUMTUNE_CI=1) a FAIL and exit 1 instead: there a
#                                   skip would hide a broken test
# Temporary directories and cleanup (one EXIT trap; INT, TERM and HUP exit through it):
#   dir=$(tmpdir)                   a new directory in $E2E_TMP, the script's own temporary
#                                   directory, removed at exit (kept with CSUMTUNE_E2E_KEEP=1)
#   on_exit COMMAND [ARG...]        runs COMMAND at exit, the last registered first
# Call on_exit, and the checks, in the script's own shell, not in $(...) or ( ): what a
# subshell registers or counts is lost with it.

if [[ -z ${E2E_LIB_LOADED:-} ]]; then
E2E_LIB_LOADED=1
E2E_NAME=$(basename "$0" .sh)
e2e_checks=0
e2e_failures=0
e2e_cleanups=()
last_output=""
last_status=0

log() { echo "$E2E_NAME: $*"; }

die() {
  echo "$E2E_NAME: FAIL: $*"
  exit 1
}

skip() {
  if [[ ${CSUMTUNE_CI:-0} == 1 ]]; then
    echo "$E2E_NAME: FAIL: $* (not skipped in CI: CSUMTUNE_CI=1)"
    exit 1
  fi
  echo "$E2E_NAME: SKIP: $*"
  exit 77
}

pass() {
  e2e_checks=$((e2e_checks + 1))
  echo "ok:   $*"
}

fail() {
  e2e_checks=$((e2e_checks + 1))
  e2e_failures=$((e2e_failures + 1))
  echo "FAIL: $*"
  return 1
}

check() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

contains() {
  local text=$1 part
  shift
  for part in "$@"; do
    [[ $text == *"$part"* ]] || { echo "      '$part' is not in: ${text:0:2000}"; return 1; }
  done
}

lacks() {
  local text=$1 part
  shift
  for part in "$@"; do
    [[ $text != *"$part"* ]] || { echo "      '$part' is in: ${text:0:2000}"; return 1; }
  done
}

expect() {
  local what="" output=0 message=0 lacking=() want text="" part problem=""
  while [[ $# -gt 0 ]]; do
    case $1 in
      --as) what=$2; shift 2 ;;
      --output) output=1; shift ;;
      --message) message=1; shift ;;
      --lacks) lacking+=("$2"); shift 2 ;;
      *) break ;;
    esac
  done
  want=${1:-}
  shift
  [[ ${1:-} != -- ]] && { text=${1:-}; shift; }
  if [[ ! $want =~ ^[0-9]+$ || ${1:-} != -- || $# -lt 2 ]]; then
    die "a script bug: expect [OPTION...] STATUS [TEXT] -- COMMAND [ARG...] (got '$want' '$text' '$*')"
  fi
  shift
  [[ -n $what ]] || what="'$*'"
  # (Through a file, not $(...): a child the command leaves behind may hold a pipe open.)
  if [[ $output == 1 ]]; then
    if "$@" >"$E2E_TMP/expect.out" 2>&1; then last_status=0; else last_status=$?; fi
  else
    if "$@" 2>"$E2E_TMP/expect.out" >/dev/null; then last_status=0; else last_status=$?; fi
  fi
  last_output=$(<"$E2E_TMP/expect.out")
  if [[ $last_status -ne $want ]]; then
    problem="exited $last_status, expected $want"
  elif [[ -n $text && $last_output != *"$text"* ]]; then
    problem="does not say '$text'"
  elif [[ $message == 1 && -z $last_output ]]; then
    problem="gives no message"
  else
    for part in "${lacking[@]}"; do
      [[ $last_output == *"$part"* ]] && { problem="says '$part'"; break; }
    done
  fi
  if [[ -z $problem ]]; then
    pass "$what -> $want"
  else
    fail "$what $problem ($([[ $output == 1 ]] && echo output || echo stderr): ${last_output:0:2000})"
  fi
}

finish() {
  if [[ $e2e_failures -eq 0 ]]; then
    log "all $e2e_checks checks passed"
    exit 0
  fi
  log "$e2e_failures of $e2e_checks checks failed"
  exit 1
}

on_exit() {
  local command
  printf -v command '%q ' "$@"
  e2e_cleanups+=("$command")
}

tmpdir() {
  mktemp -d -p "$E2E_TMP" || die "cannot create a temporary directory in $E2E_TMP"
}

e2e_remove_tmp() {
  if [[ ${CSUMTUNE_E2E_KEEP:-0} == 1 ]]; then log "kept $E2E_TMP" >&2; else rm -rf "$E2E_TMP"; fi
}

e2e_exit() {
  local status=$? i
  trap - EXIT INT TERM HUP
  for ((i = ${#e2e_cleanups[@]} - 1; i >= 0; i--)); do
    eval "${e2e_cleanups[i]}" || true
  done
  if [[ $status -eq 0 && $e2e_failures -ne 0 ]]; then
    log "$e2e_failures of $e2e_checks checks failed"
    status=1
  fi
  exit "$status"
}
trap e2e_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
E2E_TMP=$(mktemp -d -t "csumtune-$E2E_NAME.XXXXXX") || die "cannot create a temporary directory"
on_exit e2e_remove_tmp
# Each script starts with no remembered quiet probe (measure/quiet_reference.hpp): what an
# earlier script or the user's own runs measured must not decide whether this one is busy.
export CSUMTUNE_CACHE_DIR="$E2E_TMP/cache"
fi
