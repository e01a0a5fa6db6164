#!/bin/sh
# Runs GIMP 3's console headless with the plug-in and the GEGL operation
# built in _build, in a scratch profile (the operation where GEGL looks,
# XDG_DATA_HOME):  scripts/run-gimp.sh INTERPRETER BATCH-COMMAND
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
profile=$(mktemp -d "$top/_build/profile.XXXXXX")
trap 'rm -rf "$profile"' EXIT
export GIMP3_DIRECTORY="$profile"
sh "$top/scripts/gimp-profile.sh" "$profile" "$top/_build/plug-ins"
if [ -f "$top/_build/gegl/cuda-convolve-gpl3.so" ]; then
  export XDG_DATA_HOME="$profile/data" CUDA_CONVOLVE_PRESET_DIR="$top/presets"
  mkdir -p "$XDG_DATA_HOME/gegl-0.4/plug-ins"
  cp "$top/_build/gegl/cuda-convolve-gpl3.so" "$XDG_DATA_HOME/gegl-0.4/plug-ins/"
fi
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
