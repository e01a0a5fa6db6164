#!/bin/sh
# A scratch GIMP profile that runs this build's plug-in and operation,
# whatever copies are installed:
#
#   scripts/gimp-profile.sh PROFILE PLUG-INS [MODULE]
#
# writes PROFILE/gimprc with PLUG-INS (the build tree's plug-ins folder)
# first on GIMP's plug-in path, since GIMP takes the first plug-in of a name
# and skips the rest, and the welcome dialog off; and two GEGL module
# folders for GEGL_PATH, which replaces GEGL's own list: PROFILE/gegl-none,
# GEGL's own modules without any cuda-convolve-gpl3.so installed among them,
# and PROFILE/gegl-build, the same with MODULE.  Used by run-gimp.sh,
# gui-session.sh and tests/test-gimp.sh.
set -eu
mkdir -p "$1"
cat >"$1/gimprc" <<EOT
(plug-in-path "$2:\${gimp_plug_in_dir}/plug-ins")
(show-welcome-dialog no)
EOT

# GEGL's module folder is LIBDIR/gegl-0.4 beside its library.
lib=$(ldd "$(command -v gegl || echo /usr/bin/gegl)" 2>/dev/null |
      awk '/libgegl-0\.4\.so/ { print $3; exit }')
system=$(dirname "$(readlink -f "${lib:-/nonexistent}")")/gegl-0.4
[ -d "$system" ] || system=$(pkg-config --variable=pluginsdir gegl-0.4 2>/dev/null) ||
  { echo "gimp-profile: GEGL's module folder not found" >&2; exit 1; }
mkdir -p "$1/gegl-none" "$1/gegl-build"
for f in "$system"/*; do
  case "$f" in */cuda-convolve-gpl3.so) continue ;; esac
  ln -sf "$f" "$1/gegl-none/"
  ln -sf "$f" "$1/gegl-build/"
done
[ -z "${3:-}" ] || cp "$3" "$1/gegl-build/"
