#!/bin/sh
# One of the configurations configure accepts, built out of tree in
# _config/NAME and checked there with its own `make check`:
#
#   scripts/test-config.sh NAME [CONFIGURE-OPTION]...
#
# e.g. `scripts/test-config.sh no-fftw --without-fftw`.  Where it runs, as it
# is: natively, or in a GIMP root through scripts/env.sh; PKG_CONFIG_LIBDIR=
# /nonexistent hides every library pkg-config finds (a build without GLib).
# Prints configure's summary and the tests' results; the status is make
# check's.
set -eu
cd "$(dirname "$0")/.."
name=$1; shift
[ -f configure ] || autoreconf -fi >/dev/null 2>&1
rm -rf "_config/$name"
mkdir -p "_config/$name"
cd "_config/$name"
echo "test-config: $name: configure $*"
../../configure "$@" >configure.log 2>&1 || { tail -20 configure.log; exit 1; }
sed -n '/CUDA GPU methods/,/widget tests/p' configure.log
make -j"$(nproc)" >build.log 2>&1 || { grep -B2 -A10 -i error build.log | head -40; exit 1; }
status=0
make -j"$(nproc)" check >check.log 2>&1 || status=$?
grep -h '^SKIP: ' tests/*.log 2>/dev/null | sort -u
grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL):|^# (TOTAL|PASS|SKIP|FAIL|ERROR)' check.log
[ $status = 0 ] || cat test-suite.log
exit $status
