#!/bin/sh
# After the shared gimp-on-gpu tool's pack.sh: takes out of the packed GIMP
# root what the GIMP suites and benchmarks never load, where pack.sh left it.
# The Debian 13 root carries scikit-image, SciPy and matplotlib for
# test-skimage.sh, which made its bundle 145 MB, past the device tool's
# 64 MiB; without them and what follows, 58 MB (2026-11-29).
#
#   scripts/gpu-slim-root.sh [BUNDLE]      BUNDLE defaults to .gpubundle
set -eu
bundle=${1:-.gpubundle}
[ -f "$bundle/root.tar.xz" ] || { echo "gpu-slim-root: no $bundle/root.tar.xz (run pack.sh first)" >&2; exit 1; }
tmp=$(mktemp -d /var/tmp/gpu-slim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
xz -dc "$bundle/root.tar.xz" | tar -xf - -C "$tmp"
py=$tmp/usr/lib/python3/dist-packages
for d in scipy scipy.libs skimage matplotlib mpl_toolkits numpy numpy.libs sympy mpmath networkx \
         fontTools lxml PIL pillow.libs imageio tifffile pywt lazy_loader contourpy kiwisolver fs lz4; do
  rm -rf "${py:?}/$d"
done
rm -rf "$tmp/usr/share/unicode" "$tmp/usr/share/proj" "$tmp/usr/share/matplotlib" \
       "$tmp/usr/share/gdcm-3.0" "$tmp"/tmp/*
# GIMP's painting resources, dpkg's records, GTK's emoji and G'MIC's
# GraphicsMagick: no suite loads them (the roots carry gmic since 2026-11-28).
gimp=$(ls -d "$tmp"/usr/share/gimp/3.* | head -1)
rm -rf "$gimp/brushes" "$gimp/dynamics" "$gimp/gimpressionist" "$gimp/images" \
       "$gimp/patterns" "$gimp/tips" "$gimp/fractalexplorer" "$tmp/var/lib/dpkg/info" \
       "$tmp/usr/share/gtk-3.0/emoji" "$tmp"/usr/lib/libGraphicsMagick*
(cd "$tmp" && tar -cf - .) | xz -T0 -6 > "$bundle/root.tar.xz.new"
# pack.sh remakes the root when the root's packages are newer than its copy:
# the slimmed copy keeps the packed one's time.
touch -r "$bundle/root.tar.xz" "$bundle/root.tar.xz.new"
mv "$bundle/root.tar.xz.new" "$bundle/root.tar.xz"
echo "gpu-slim-root: $(du -m "$bundle/root.tar.xz" | cut -f1) MB in $bundle/root.tar.xz"
