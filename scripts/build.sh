#!/bin/sh
# Configures and builds out of tree in _build (run by scripts/env.sh, so
# natively or in the GIMP root).  CUDA_ARCH (e.g. sm_90) builds one GPU
# architecture instead of all.
set -eu
cd "$(dirname "$0")/.."
autoreconf -fi >/dev/null 2>&1
# An in-tree configuration stops the out-of-tree build.
if [ -f config.status ]; then
  echo "build: cleaning the in-tree configuration (make distclean) for _build" >&2
  make distclean >/dev/null 2>&1 || rm -f config.status
fi
# A build from another system (the other GIMP root, or the host) has its
# compiler's and libraries' objects: start afresh.
system=$(. /etc/os-release && echo "$ID ${VERSION_CODENAME:-$VERSION_ID}")
if [ -f _build/config.status ] && [ "$(cat _build/.system 2>/dev/null)" != "$system" ]; then
  echo "build: _build was made on another system; building afresh for $system" >&2
  rm -rf _build
fi
mkdir -p _build
echo "$system" >_build/.system
cd _build
../configure ${CUDA_ARCH:+--with-cuda-arch="$CUDA_ARCH"} >configure.log 2>&1 ||
  { tail -30 configure.log; exit 1; }
tail -4 configure.log
make -j"$(nproc)" >build.log 2>&1 || { grep -B2 -A10 -i error build.log | head -60; exit 1; }
