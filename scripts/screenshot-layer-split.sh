#!/bin/sh
# Screenshots GIMP 3's own dialog for cuda:convolve-layer with a layer chosen
# as the mask and the on-canvas split view, under Xvfb (run by
# scripts/env.sh, so natively or in the GIMP root, after scripts/build.sh):
#
#   scripts/env.sh scripts/screenshot-layer-split.sh
#
# writes docs/layer-split-view.png.  A batch opens the Hubble crop and adds
# a hidden 41x41 layer holding a white hexagon (the aperture); then, there
# being no window manager and no way to open a filter's dialog from a
# script, it clicks where GIMP 3.0.4 draws things on a 1600x1000 screen:
# Filters > Generic > Convolve with a layer on the GPU..., the Mask image
# button, the aperture in its list (twice, to choose it), and Split view.
# Another GIMP version may draw them elsewhere.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
display=:96 screen=1600x1000
. "$top/scripts/gui-session.sh"

gimp-3 --no-splash --batch-interpreter=plug-in-script-fu-eval \
  -b "$(hubble_with_aperture hidden)" >"$profile/gimp.log" 2>&1 &
gimp=$!
image_window GIMP
generic_filter_dialog 778 464 "cuda:convolve-layer" 1060 40
# The Mask image button, the aperture in its list, then Split view.
xdotool mousemove $((X + 154)) $((Y + 99)) click 1
sleep 3
xdotool mousemove 1123 248 click --repeat 2 --delay 120 1
sleep 4
xdotool mousemove 700 900
sleep 1
xdotool mousemove $((X + 438)) $((Y + 553)) click 1
sleep 4
xdotool mousemove 700 900
sleep 3
import -window root -crop 1600x700+0+0 +repage "$top/docs/layer-split-view.png"
kill "$gimp"
echo "wrote docs/layer-split-view.png"
