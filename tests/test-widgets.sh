#!/bin/sh
# The dialog's widgets under a virtual display: starts Xvfb unless a display
# is set; skips (77) where there is neither.
set -u
builddir="${top_builddir:-.}"
if [ -z "${DISPLAY:-}" ]; then
  if ! command -v Xvfb >/dev/null; then
    echo "SKIP: no display and no Xvfb"
    exit 77
  fi
  display=:$(( 70 + $$ % 20 ))
  Xvfb "$display" -screen 0 1280x1024x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb=$!
  trap 'kill $xvfb 2>/dev/null' EXIT
  export DISPLAY="$display"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -e "/tmp/.X11-unix/X${display#:}" ] && break
    sleep 0.3
  done
fi
"$builddir/tests/test-widgets"
