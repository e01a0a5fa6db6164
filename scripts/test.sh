#!/bin/sh
# The whole test suite, on a fresh Debian 12 or 13 machine, as root:
# installs what it needs, builds (out of tree, in _build), runs `make check`.
# GPU tests skip where there is no GPU; GIMP tests run in real GIMP 3.
# CUDA_ARCH (e.g. sm_90) builds one GPU architecture instead of all.
set -eu
cd "$(dirname "$0")/.."
where=$(scripts/setup.sh)

build='autoreconf -fi >/dev/null 2>&1 && mkdir -p _build && cd _build &&
  ../configure ${CUDA_ARCH:+--with-cuda-arch="$CUDA_ARCH"} >configure.log &&
  tail -4 configure.log && make -j"$(nproc)" >build.log 2>&1 || { tail -40 build.log; exit 1; }
  make -j"$(nproc)" check || { cat test-suite.log; exit 1; }'
if [ "$where" = root ]; then
  scripts/gimp-root.sh run env CUDA_ARCH="${CUDA_ARCH:-}" sh -c "$build"
else
  sh -c "$build"
fi
