#!/bin/sh
# Screenshots GIMP 3's own dialog for the GEGL operation with the on-canvas
# split view, under Xvfb (run by scripts/env.sh, so natively or in the GIMP
# root, after scripts/build.sh):
#
#   scripts/env.sh scripts/screenshot-split.sh
#
# writes docs/split-view.png.  There is no window manager and no way to
# open a filter's dialog from a script, so it clicks GIMP's menus where
# GIMP 3.0.4 draws them on a 1600x1000 screen (Filters > Generic > Convolve
# on the GPU (live)...), picks the preset from its list in the dialog and
# ticks Split view; another GIMP version may draw them elsewhere.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
display=:98 screen=1600x1000
. "$top/scripts/gui-session.sh"

gimp-3 --no-splash "$top/data/sample.png" >"$profile/gimp.log" 2>&1 &
gimp=$!
image_window sample
generic_filter_dialog 756 440 "cuda:convolve" 1222 60
# The preset's list, Emboss in it, then Split view.
xdotool mousemove $((X + 288)) $((Y + 114)) click 1
sleep 2
xdotool mousemove $((X + 42)) $((Y + 233)) click 1
sleep 4
xdotool mousemove $((X + 274)) $((Y + 527)) click 1
sleep 4
xdotool mousemove 700 900
sleep 2
import -window root "$top/docs/split-view.png"
kill "$gimp"
echo "wrote docs/split-view.png"
