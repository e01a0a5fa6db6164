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
profile=$(mktemp -d "$top/_build/profile.XXXXXX")
Xvfb :97 -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$profile"' EXIT
export DISPLAY=:97 GIMP3_DIRECTORY="$profile"
sh "$top/scripts/gimp-profile.sh" "$profile" "$top/_build/plug-ins"
export XDG_DATA_HOME="$profile/data" CUDA_CONVOLVE_PRESET_DIR="$top/presets"
mkdir -p "$XDG_DATA_HOME/gegl-0.4/plug-ins"
cp "$top/_build/gegl/cuda-convolve-gpl3.so" "$XDG_DATA_HOME/gegl-0.4/plug-ins/"
sleep 1

timeout 300 gimp-3.0 --no-splash --batch-interpreter=plug-in-script-fu-eval -b "
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"$top/data/hubble-xdf.png\")))
       (photo (vector-ref (car (gimp-image-get-layers img)) 0))
       (aperture (car (gimp-layer-new img \"aperture\" 41 41 RGB-IMAGE 100
                                      LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer img aperture 0 0)
  (gimp-context-set-foreground '(0 0 0))
  (gimp-drawable-fill aperture FILL-FOREGROUND)
  (gimp-image-select-polygon img CHANNEL-OP-REPLACE
    (vector 25.05 1.16 38.84 14.95 33.79 33.79 14.95 38.84 1.16 25.05 6.21 6.21))
  (gimp-drawable-edit-fill aperture FILL-WHITE)
  (gimp-selection-none img)
  (gimp-image-set-selected-layers img (vector photo))
  (gimp-image-clean-all img)
  (gimp-display-new img)
  (plug-in-cuda-convolve #:run-mode RUN-INTERACTIVE #:image img #:drawables (vector photo)
                         #:mask-drawable aperture)
  (gimp-quit 1))" >"$profile/gimp.log" 2>&1 &
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
