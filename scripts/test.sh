#!/bin/sh
# The whole test suite, on a fresh Debian 12 or 13 machine, as root (what CI
# runs): for each supported GIMP (3.0 on Debian 13, 3.2 on Debian forky,
# each in a root of its own: scripts/gimp-root.sh), builds and runs `make
# check` (the engine, the tool, the presets, the dialog's widgets); then
# builds the release once and, in a root of each GIMP that has nothing to
# build with, installs it and runs the GIMP suites against it
# (scripts/test-release.sh: the plug-in, the GEGL operation and the tool in
# that real GIMP); then the CPU engine, the tool and the preset parser
# under ASan and UBSan, and each fuzz target for FUZZ_SECONDS (default 15).
# Two other configurations build and check on their own as well
# (scripts/test-config.sh): without FFTW, and without CUDA or GIMP.
# GPU tests skip where there is no GPU.  GIMP_VERSION=3.0 or 3.2 tests in
# that GIMP alone; CUDA_ARCH (e.g. sm_90) builds one GPU architecture.
set -eu
cd "$(dirname "$0")/.."
versions=${GIMP_VERSION:-3.0 3.2}
# The host's packages, then every root this run needs, side by side:
# fetching and unpacking packages is most of a fresh machine's first run.
GIMP_VERSION=$(echo $versions | cut -d' ' -f1) scripts/setup.sh >/dev/null
pids=
for version in $versions; do
  for kind in dev user; do
    GIMP_VERSION=$version GIMP_ROOT_KIND=$kind scripts/gimp-root.sh provision &
    pids="$pids $!"
  done
done
for pid in $pids; do wait "$pid"; done
for version in $versions; do
  echo "test: GIMP $version, the build tree"
  GIMP_VERSION=$version scripts/env.sh env CUDA_ARCH="${CUDA_ARCH:-}" \
    CC_GIMP_SUITES_ELSEWHERE="they run against the installed release (scripts/test-release.sh)" \
    sh -c 'scripts/build.sh && cd _build &&
           { make -j"$(nproc)" check || { cat test-suite.log; exit 1; }; }'
done
# The two cheapest of the other configurations configure accepts, each with
# its own make check: without FFTW (nor GLib, CUDA or GIMP: the bare engine
# and tool, natively), and without CUDA or GIMP (in the last GIMP's root,
# so with GEGL's file formats and the widgets).
PKG_CONFIG_LIBDIR=/nonexistent scripts/test-config.sh bare --without-fftw --without-cuda
scripts/check-dist.sh _config/bare
last=$(echo $versions | awk '{ print $NF }')
GIMP_VERSION=$last scripts/env.sh scripts/test-config.sh cpu-only --without-cuda --without-gimp
CUDA_ARCH=${CUDA_ARCH:-sm_90} scripts/test-release.sh $versions
scripts/sanitize.sh
scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
