#!/bin/sh
# cuda-convolve --deconvolve against scikit-image's Richardson-Lucy and
# Wiener, and the restoration's quality on its photographs
# (tests/deconvolve.py).  scikit-image is in every root the suites build in
# (scripts/gimp-root.sh); elsewhere this skips, saying so.
set -u
tool="${top_builddir:-.}/tools/cuda-convolve"
if ! python3 -c 'import skimage, scipy' 2>/dev/null; then
  echo "SKIP: no scikit-image and SciPy for python3 (Debian's python3-skimage)"
  exit 77
fi
# A folder inside the build tree: a GIMP root sees it too.
tmp=$(mktemp -d "${top_builddir:-.}/skimage.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Whether the tool runs Wiener: by default on a usable GPU (its own
# transforms; the probe is test-tool.sh's), else on the CPU, which has it
# only through FFTW.  Where it does not, deconvolve.py checks its refusal.
printf 'P5\n3 3\n255\n012345678' >"$tmp/probe.pgm"
if grep -q '^#define HAVE_FFTW 1' "${top_builddir:-.}/config.h" 2>/dev/null ||
   "$tool" --method register "$tmp/probe.pgm" "$tmp/probe-out.pgm" 2>/dev/null; then
  export CC_TOOL_WIENER=1
else
  export CC_TOOL_WIENER=0
fi
python3 "${top_srcdir:-..}/tests/deconvolve.py" "$tool" "$tmp"
