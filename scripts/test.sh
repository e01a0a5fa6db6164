#!/bin/sh
# The whole test suite, on a fresh Debian 12 or 13 machine, as root: for
# each supported GIMP (3.0 on Debian 13, 3.2 on Debian forky, each in its
# root: scripts/gimp-root.sh), installs what it needs, builds, and runs
# `make check` (engine, tool, presets, and the plug-in in that real GIMP);
# then the CPU engine, the tool and the preset parser under ASan and UBSan,
# and each fuzz target for FUZZ_SECONDS (default 15).  GPU tests skip where
# there is no GPU.  GIMP_VERSION=3.0 or 3.2 tests in that GIMP alone;
# CUDA_ARCH (e.g. sm_90) builds one GPU architecture instead of all.
set -eu
cd "$(dirname "$0")/.."
for version in ${GIMP_VERSION:-3.0 3.2}; do
  echo "test: GIMP $version"
  GIMP_VERSION=$version scripts/env.sh env CUDA_ARCH="${CUDA_ARCH:-}" sh -c \
    'scripts/build.sh && cd _build && { make -j"$(nproc)" check || { cat test-suite.log; exit 1; }; } &&
     grep -hE "checks, |^files: |^SKIP" tests/test-gimp.sh.log'
done
scripts/sanitize.sh
scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
