#!/bin/sh
# The main job, on a fresh Debian 12 or 13 machine, as root: builds the
# plug-in, then GIMP 3 (headless) applies a shipped preset to the sample
# image through plug-in-cuda-convolve and writes the result.
#
#   scripts/demo.sh [PRESET [INPUT [OUTPUT]]]
#
# PRESET defaults to emboss, INPUT to data/sample.png, OUTPUT to
# sample-PRESET.png in the current directory.  Paths must lie inside the
# clone when GIMP runs in the Debian 13 root.
set -eu
cd "$(dirname "$0")/.."
preset=${1:-emboss}
input=$(realpath "${2:-data/sample.png}")
output=$(realpath -m "${3:-sample-$preset.png}")
exec scripts/env.sh env PRESET="$preset" INPUT="$input" OUTPUT="$output" \
  CUDA_ARCH="${CUDA_ARCH:-}" sh -c 'scripts/build.sh && scripts/run-gimp.sh python-fu-eval \
  "exec(open(\"$PWD/scripts/demo.py\").read())"'
