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
python3 "${top_srcdir:-..}/tests/deconvolve.py" "$tool" "$tmp"
