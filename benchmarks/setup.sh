#!/usr/bin/env bash
# Benchmark set-up (issue 5): the external tools the runner compares against or measures with,
# from Debian packages, installed only when missing:
#   ripgrep  `rg`, the "what a person would use instead" baseline of `vault-sync query`
#   time     `/usr/bin/time`, the peak RSS of each measured process
#
#   benchmarks/setup.sh        (./run bench runs it before benchmarks/run.py)
#
# Installs with `apt-get install -y --no-install-recommends` as root, or through `sudo -n` when
# that works without a password; runs `apt-get update` once if the first attempt fails (a fresh
# container has no package lists). Best-effort: it always exits 0. When it cannot install, it
# says why on stderr and the runner falls back (`grep -ril` for `rg`, the child's `os.wait4`
# rusage for `/usr/bin/time`) and records in its JSON which tool it used.
set -uo pipefail

say() { echo "bench setup: $*" >&2; }
have() {
  local rg=missing tm=missing
  command -v rg > /dev/null 2>&1 && rg=$(rg --version 2> /dev/null | head -n 1)
  [ -x /usr/bin/time ] && tm=present
  say "rg: $rg; /usr/bin/time: $tm"
}

need=()
command -v rg > /dev/null 2>&1 || need+=(ripgrep)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -eq 0 ]; then
  have
  exit 0
fi

fallback() {
  say "cannot install ${need[*]}: $1"
  case " ${need[*]} " in *" ripgrep "*) say "the runner falls back to grep -ril" ;; esac
  case " ${need[*]} " in *" time "*) say "peak RSS falls back to os.wait4 (an upper bound)" ;; esac
  exit 0
}

command -v apt-get > /dev/null 2>&1 || fallback "apt-get not found (not a Debian-like system)"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
  as_root=(sudo -n)
else
  fallback "not root and no password-less sudo"
fi
limit=()
command -v timeout > /dev/null 2>&1 && limit=(timeout 600)

export DEBIAN_FRONTEND=noninteractive
out=$(mktemp)
trap 'rm -f "$out"' EXIT
apt() { "${limit[@]}" "${as_root[@]}" apt-get -q "$@" >> "$out" 2>&1; }

say "installing ${need[*]} (apt-get)"
if ! apt install -y --no-install-recommends "${need[@]}"; then
  apt update && apt install -y --no-install-recommends "${need[@]}" \
    || fallback "apt-get failed: $(tail -n 3 "$out" | tr '\n' ' ')"
fi
if ! command -v rg > /dev/null 2>&1 && [[ " ${need[*]} " == *" ripgrep "* ]]; then
  need=(ripgrep)
  fallback "the package is installed but rg is not on PATH ($PATH)"
fi
have
