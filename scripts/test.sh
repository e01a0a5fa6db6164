#!/bin/sh
# The whole test suite, on a fresh Debian 12 or 13 machine, as root:
# installs what it needs, builds, runs `make check` (engine, tool, presets,
# and the plug-in in real GIMP 3), then the CPU engine, the tool and the
# preset parser under ASan and UBSan, then each fuzz target for
# FUZZ_SECONDS (default 15).  GPU tests skip where there is no GPU.
# CUDA_ARCH (e.g. sm_90) builds one GPU architecture instead of all.
set -eu
cd "$(dirname "$0")/.."
scripts/env.sh env CUDA_ARCH="${CUDA_ARCH:-}" sh -c \
  'scripts/build.sh && cd _build && { make -j"$(nproc)" check || { cat test-suite.log; exit 1; }; }'
scripts/sanitize.sh
scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
