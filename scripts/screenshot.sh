#!/bin/sh
# Screenshots the plug-in's dialog in GIMP 3's GUI under Xvfb (run by
# scripts/env.sh, so natively or in the GIMP root):
#
#   scripts/env.sh scripts/screenshot.sh [PRESET]
#
# writes docs/dialog.png, then presses OK and writes the result as
# docs/sample-PRESET.png (data/sample.png is the "before").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-emboss}
CUDA_ARCH=${CUDA_ARCH:-sm_90} "$top/scripts/build.sh" >/dev/null

# The GEGL operation where GEGL looks (gui-session.sh), so that the dialog
# previews on the canvas too.
display=:99 screen=1600x1200
. "$top/scripts/gui-session.sh"

# GIMP opens the sample, shows it, and runs the procedure interactively with
# the preset; the batch waits in the dialog until OK is pressed below.
timeout 300 gimp-3 --no-splash --batch-interpreter=plug-in-script-fu-eval -b "
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"$top/data/sample.png\")))
       (layer (vector-ref (car (gimp-image-get-layers img)) 0)))
  (gimp-display-new img)
  (plug-in-cuda-convolve #:run-mode RUN-INTERACTIVE #:image img #:drawables (vector layer)
                         #:preset \"$preset\")
  (gimp-file-save RUN-NONINTERACTIVE img \"$top/docs/sample-$preset.png\")
  (gimp-quit 1))" >"$profile/gimp.log" 2>&1 &
gimp=$!

window=$(timeout 120 xdotool search --sync --name "CUDA Convolution Matrix" | head -1)
sleep 4   # the preview renders
import -window "$window" "$top/docs/dialog.png"
# No window manager: focus the dialog directly, then press OK (Return).
xdotool windowfocus --sync "$window" key Return
wait $gimp || { cat "$profile/gimp.log"; exit 1; }
echo "wrote docs/dialog.png and docs/sample-$preset.png"
