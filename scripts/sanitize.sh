#!/bin/sh
# The CPU engine, the tool and the preset parser under AddressSanitizer and
# UndefinedBehaviorSanitizer: a --without-cuda build in _asan, `make check`.
# Needs only gcc (scripts/setup.sh installs it); GLib for the preset tests.
set -eu
cd "$(dirname "$0")/.."
[ -x configure ] || autoreconf -fi >/dev/null 2>&1
mkdir -p _asan
cd _asan
[ -f Makefile ] ||
  ../configure --without-cuda --without-gimp --enable-sanitizers >configure.log 2>&1 ||
  { tail -20 configure.log; exit 1; }
make -j"$(nproc)" >build.log 2>&1 || { grep -B2 -A10 -i error build.log | head -60; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
make -j"$(nproc)" check >check.log 2>&1 || { cat test-suite.log; exit 1; }
echo "sanitize: ASan+UBSan build, make check:"
grep -E '^(PASS|SKIP|FAIL|XFAIL|ERROR|# )' check.log
