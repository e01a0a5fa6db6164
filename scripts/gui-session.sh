# Sourced by the screenshot scripts, with $top, $display (":98") and
# $screen ("1600x1000") set: a fresh GIMP profile with the plug-in and the
# GEGL operation built in _build, an Xvfb screen, both gone on exit; and
# helpers for driving GIMP there without a window manager.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
profile=$(mktemp -d "$top/_build/profile.XXXXXX")
Xvfb "$display" -screen 0 "${screen}x24" -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$profile"' EXIT
export DISPLAY="$display" GIMP3_DIRECTORY="$profile" XDG_DATA_HOME="$profile/data"
export CUDA_CONVOLVE_PRESET_DIR="$top/presets" GEGL_PATH="$profile/gegl-build"
sh "$top/scripts/gimp-profile.sh" "$profile" "$top/_build/plug-ins" \
  "$top/_build/gegl/cuda-convolve-gpl3.so"
sleep 1

# The window whose name contains $1.
window () {
  for w in $(xdotool search --onlyvisible --name "." 2>/dev/null); do
    case "$(xdotool getwindowname "$w")" in *"$1"*) echo "$w"; return ;; esac
  done
}

# After GIMP was started: its image window (the name contains $1) made the
# whole screen, once GIMP has loaded the image and its welcome dialog is
# closed.
image_window () {
  sleep 25
  welcome=$(window Welcome)
  [ -n "$welcome" ] && { xdotool windowfocus --sync "$welcome" key Escape; sleep 2; }
  main=$(window "$1")
  [ -n "$main" ] || { echo "$0: no image window" >&2; cat "$profile/gimp.log"; exit 1; }
  xdotool windowsize --sync "$main" 1600 1000
  xdotool windowmove "$main" 0 0
  sleep 2
}

# Filters > Generic > the entry GIMP 3.0.4 draws at ($1, $2) on a 1600x1000
# screen; its dialog (named $3) moved to ($4, $5), its corner in X and Y.
generic_filter_dialog () {
  xdotool mousemove 425 12 click 1
  sleep 2
  xdotool mousemove 453 263
  sleep 2
  xdotool mousemove 700 263
  sleep 1
  xdotool mousemove "$1" "$2" click 1
  sleep 8
  dialog=$(window "$3")
  [ -n "$dialog" ] || { echo "$0: no dialog" >&2; exit 1; }
  xdotool windowmove --sync "$dialog" "$4" "$5"
  sleep 2
  eval "$(xdotool getwindowgeometry --shell "$dialog")"
}

# Script-Fu that opens the Hubble crop and adds a 41x41 layer holding a
# white hexagon on black, the aperture, hidden unless $1 is "shown"; it
# binds img, photo and aperture for what follows it ($2), and shows the
# image.
hubble_with_aperture () {
  cat <<SCM
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "$top/data/hubble-xdf.png")))
       (photo (vector-ref (car (gimp-image-get-layers img)) 0))
       (aperture (car (gimp-layer-new img "aperture" 41 41 RGB-IMAGE 100
                                      LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer img aperture 0 0)
  (gimp-context-set-foreground '(0 0 0))
  (gimp-drawable-fill aperture FILL-FOREGROUND)
  (gimp-image-select-polygon img CHANNEL-OP-REPLACE
    (vector 25.05 1.16 38.84 14.95 33.79 33.79 14.95 38.84 1.16 25.05 6.21 6.21))
  (gimp-drawable-edit-fill aperture FILL-WHITE)
  (gimp-selection-none img)
  (gimp-item-set-visible aperture $([ "$1" = shown ] && echo TRUE || echo FALSE))
  (gimp-image-set-selected-layers img (vector photo))
  (gimp-image-clean-all img)
  (gimp-display-new img)
  ${2:-})
SCM
}
