#!/bin/sh
# Screenshots the plug-in's dialog with a layer chosen as the mask, and its
# preview on the canvas, in GIMP 3's GUI under Xvfb (run by scripts/env.sh,
# so natively or in the GIMP root, after scripts/build.sh):
#
#   scripts/env.sh scripts/screenshot-mask-layer.sh
#
# writes docs/mask-layer.png.  GIMP opens the Hubble crop, adds a 41x41
# layer holding a white hexagon (the aperture, top left), and runs the
# procedure interactively with that layer as mask-drawable; the batch waits
# in the dialog, which is screenshot with the image window beside it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
display=:97 screen=1600x1000
. "$top/scripts/gui-session.sh"

timeout 300 gimp-3 --no-splash --batch-interpreter=plug-in-script-fu-eval -b "$(
  hubble_with_aperture shown "
  (plug-in-cuda-convolve #:run-mode RUN-INTERACTIVE #:image img #:drawables (vector photo)
                         #:mask-drawable aperture)
  (gimp-quit 1)")" >"$profile/gimp.log" 2>&1 &
gimp=$!

dialog=$(timeout 120 xdotool search --sync --name "CUDA Convolution Matrix" | head -1)
sleep 3
xdotool windowmove --sync "$dialog" 760 0
sleep 6   # the preview and the canvas render
import -window root "$top/docs/mask-layer.png"
xdotool windowfocus --sync "$dialog" key Escape
sleep 2
kill "$gimp" 2>/dev/null || true
echo "wrote docs/mask-layer.png"
