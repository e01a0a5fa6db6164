#!/bin/sh
# Runs GIMP 3's console headless with the plug-in and the GEGL operation
# built in _build, whatever copies are installed (a scratch profile, and
# GEGL_PATH: scripts/gimp-profile.sh):
#   scripts/run-gimp.sh INTERPRETER BATCH-COMMAND
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
profile=$(mktemp -d "$top/_build/profile.XXXXXX")
trap 'rm -rf "$profile"' EXIT
export GIMP3_DIRECTORY="$profile"
module="$top/_build/gegl/cuda-convolve-gpl3.so"
[ -f "$module" ] || module=
sh "$top/scripts/gimp-profile.sh" "$profile" "$top/_build/plug-ins" $module
export GEGL_PATH="$profile/gegl-build" CUDA_CONVOLVE_PRESET_DIR="$top/presets"
gimp=$(sh "$top/scripts/gimp-console.sh") ||
  { echo "run-gimp: GIMP 3's console (gimp-console-3) is not installed" >&2; exit 1; }
status=0
timeout 600 "$gimp" -i --batch-interpreter="$1" -b "$2" --quit \
  >"$profile/log" 2>&1 || status=$?
# GIMP's own start-up chatter is noise here; errors still show.
grep -v -e 'cannot open display' -e 'gimp_wire_read' -e 'Welcome to GIMP' \
        -e 'Broken pipe' -e 'batch command executed successfully' \
        -e 'Failed to parse tag cache' -e '^$' "$profile/log" || true
exit $status
