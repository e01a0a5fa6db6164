#!/bin/sh
# cuda-convolve end to end: format round trips, a hand-computed result, and
# clear refusals of bad files and bad options.
set -u
tool="${top_builddir:-.}/tools/cuda-convolve"
export CUDA_CONVOLVE_PRESET_DIR="${PRESET_DIR:-${top_srcdir:-..}/presets}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail () { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs the tool; expects exit status $1, then checks stderr is one line
# starting with "cuda-convolve:" when it failed.
expect () {
  want=$1; shift
  "$tool" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "exit $got, want $want: cuda-convolve $* ($(cat "$tmp/err.txt"))"
    return 1
  fi
  if [ "$want" -ne 0 ]; then
    lines=$(wc -l <"$tmp/err.txt")
    if [ "$lines" -ne 1 ] || ! grep -q '^cuda-convolve: ' "$tmp/err.txt"; then
      fail "want one error line for: cuda-convolve $*; got: $(cat "$tmp/err.txt")"
      return 1
    fi
  fi
  return 0
}

same () { cmp -s "$1" "$2" || fail "$1 and $2 differ"; }

# ---- Inputs -------------------------------------------------------------------
{ printf 'P5\n7 5\n255\n'; head -c 35 /dev/urandom; } >"$tmp/g8.pgm"
{ printf 'P5\n# a comment\n7 5 # another\n255\n'; tail -c 35 "$tmp/g8.pgm"; } >"$tmp/gc.pgm"
{ printf 'P6\n7 5\n255\n'; head -c 105 /dev/urandom; } >"$tmp/c8.ppm"
{ printf 'P5\n7 5\n65535\n'; head -c 70 /dev/urandom; } >"$tmp/g16.pgm"
{ printf 'P7\nWIDTH 7\nHEIGHT 5\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n'
  head -c 140 /dev/urandom; } >"$tmp/rgba.pam"
{ printf 'P7\nWIDTH 7\nHEIGHT 5\nDEPTH 2\nMAXVAL 65535\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n'
  head -c 140 /dev/urandom; } >"$tmp/ga16.pam"
printf 'P2\n3 2\n1000\n0 500 1000\n1 999 250\n' >"$tmp/a1000.pgm"

# ---- Round trips through the identity mask ----------------------------------
for f in g8.pgm c8.ppm g16.pgm rgba.pam ga16.pam; do
  ext=${f##*.}
  expect 0 "$tmp/$f" "$tmp/id.$ext" && same "$tmp/$f" "$tmp/id.$ext"
done
expect 0 "$tmp/gc.pgm" "$tmp/id-c.pgm" && same "$tmp/g8.pgm" "$tmp/id-c.pgm"
# PPM -> PFM -> PFM -> PPM keeps every value; from float, PNM output is
# 16-bit, where 8-bit b becomes b * 257: the byte b twice.
pixels () { tail -c "$2" "$1" | od -An -tu1 -v | tr -s ' \n' ' '; }
expect 0 "$tmp/c8.ppm" "$tmp/c.pfm" &&
expect 0 --no-clamp "$tmp/c.pfm" "$tmp/c2.pfm" && same "$tmp/c.pfm" "$tmp/c2.pfm" &&
expect 0 "$tmp/c2.pfm" "$tmp/c16.ppm" &&
[ "$(head -c 13 "$tmp/c16.ppm" | od -c)" = "$(printf 'P6\n7 5\n65535\n' | od -c)" ] &&
[ "$(pixels "$tmp/c16.ppm" 210)" = \
  "$(pixels "$tmp/c8.ppm" 105 | awk '{ for (i = 1; i <= NF; i++) printf " %s %s", $i, $i; print " " }')" ] ||
  fail "PPM -> PFM -> PPM changed values"
# An ASCII PGM with maxval 1000 comes back binary with the same values.
expect 0 "$tmp/a1000.pgm" "$tmp/a.pgm" &&
[ "$(od -An -tu1 -v "$tmp/a.pgm" | tr -s ' \n' ' ')" = \
  "$(printf 'P5\n3 2\n1000\n' | od -An -tu1 -v | tr -s ' \n' ' ')0 0 1 244 3 232 0 1 3 231 0 250 " ] ||
  fail "maxval 1000 round trip: $(od -An -tu1 -v "$tmp/a.pgm")"

# ---- Results by hand ----------------------------------------------------------
# [1 1 1]/3 of 0 100 200, extend, in linear light (the default): the codes are
# sRGB, 0 0.127438 0.577581 in linear light; the means 0.042479 0.235006
# 0.427533 are sRGB 58.12 133.12 174.79.
printf 'P5\n3 1\n255\n\000\144\310' >"$tmp/row.pgm"
bytes () { tail -c "$2" "$1" | od -An -tu1 | tr -s ' '; }
expect 0 --matrix "1,1,1" --divisor 3 "$tmp/row.pgm" "$tmp/row-lin.pgm" &&
[ "$(bytes "$tmp/row-lin.pgm" 3)" = " 58 133 175" ] ||
  fail "box of 0 100 200 in linear light gave $(bytes "$tmp/row-lin.pgm" 3)"
# White beyond the edges: (1 + 0 + 0.127438) / 3 = 0.375813 -> 164.91, and
# (0.127438 + 0.577581 + 1) / 3 = 0.568340 -> 198.57.
expect 0 --matrix "1,1,1" --divisor 3 --border white "$tmp/row.pgm" "$tmp/row-w.pgm" &&
[ "$(bytes "$tmp/row-w.pgm" 3)" = " 165 133 199" ] ||
  fail "white border gave $(bytes "$tmp/row-w.pgm" 3)"
# --perceptual on the values as they are: 33 100 167.
expect 0 --perceptual --matrix "1,1,1" --divisor 3 "$tmp/row.pgm" "$tmp/row-out.pgm" &&
[ "$(bytes "$tmp/row-out.pgm" 3)" = " 33 100 167" ] ||
  fail "perceptual box of 0 100 200 gave $(bytes "$tmp/row-out.pgm" 3)"
# --normalize gives the same, and zero border (GEGL's none) takes 0 outside:
# 33 100 100.
expect 0 --perceptual --matrix "1,1,1" --normalize --border none "$tmp/row.pgm" \
  "$tmp/row-z.pgm" &&
[ "$(bytes "$tmp/row-z.pgm" 3)" = " 33 100 100" ] ||
  fail "zero border gave $(bytes "$tmp/row-z.pgm" 3)"
# --channels: a colour row of (0 100 200) (200 100 0) (0 100 200); with only
# g and b convolved, red keeps its codes 0 200 0, green stays 100, and blue
# is 2/3 of 200's 0.577581 everywhere (extend): 0.385054 -> 166.73.
printf 'P6\n3 1\n255\n\000\144\310\310\144\000\000\144\310' >"$tmp/rgb.ppm"
expect 0 --matrix "1,1,1" --divisor 3 --channels gb "$tmp/rgb.ppm" "$tmp/rgb-gb.ppm" &&
[ "$(bytes "$tmp/rgb-gb.ppm" 9)" = " 0 100 167 200 100 167 0 100 167" ] ||
  fail "--channels gb gave $(bytes "$tmp/rgb-gb.ppm" 9)"
# On gray, any of r, g, b convolves gray; a alone leaves it as it was.
expect 0 --matrix "1,1,1" --divisor 3 --channels b "$tmp/row.pgm" "$tmp/row-b.pgm" &&
  same "$tmp/row-lin.pgm" "$tmp/row-b.pgm"
expect 0 --matrix "1,1,1" --divisor 3 --channels a "$tmp/row.pgm" "$tmp/row-a.pgm" &&
  same "$tmp/row.pgm" "$tmp/row-a.pgm"

# --verbose names the method and the device; every method that runs here
# agrees (a 3x3 box over 8-bit values never lands on a rounding tie).
box="--matrix 1,1,1;1,1,1;1,1,1 --divisor 9 --no-alpha-weighting"
expect 0 --verbose $box --method cpu "$tmp/rgba.pam" "$tmp/cpu.pam" &&
  grep -q '^method: cpu$' "$tmp/out.txt" && grep -q '^device: CPU' "$tmp/out.txt" ||
  fail "--verbose: $(cat "$tmp/out.txt")"
for m in auto basic constant tiled caching register separable fft; do
  if "$tool" --method $m $box "$tmp/rgba.pam" "$tmp/$m.pam" 2>"$tmp/err.txt"; then
    same "$tmp/cpu.pam" "$tmp/$m.pam"
  elif [ $m = auto ] || ! grep -qi 'GPU\|driver\|CUDA' "$tmp/err.txt"; then
    fail "method $m: $(cat "$tmp/err.txt")"
  fi
done

# A 127x127 mask from a file (rows on lines) and from standard input gives
# what the same mask typed inline (rows separated by ';') gives; the
# 127x127 identity from a file gives the input back.
awk 'BEGIN { for (j = 0; j < 127; j++) { r = ""
             for (i = 0; i < 127; i++) r = r (i ? "," : "") ((i * 7 + j * 3) % 11 - 3) / 100
             print r } }' >"$tmp/m127.txt"
awk 'BEGIN { for (j = 0; j < 127; j++) { r = ""
             for (i = 0; i < 127; i++) r = r (i ? "," : "") (i == 63 && j == 63)
             print r } }' >"$tmp/id127.txt"
expect 0 --matrix @"$tmp/id127.txt" "$tmp/c8.ppm" "$tmp/id127.ppm" &&
  same "$tmp/c8.ppm" "$tmp/id127.ppm"
expect 0 --matrix "$(paste -sd';' "$tmp/m127.txt")" --normalize "$tmp/c8.ppm" "$tmp/m-inline.ppm" &&
expect 0 --matrix @"$tmp/m127.txt" --normalize "$tmp/c8.ppm" "$tmp/m-file.ppm" &&
  same "$tmp/m-inline.ppm" "$tmp/m-file.ppm"
"$tool" --matrix - --normalize "$tmp/c8.ppm" "$tmp/m-stdin.ppm" <"$tmp/m127.txt" &&
  same "$tmp/m-inline.ppm" "$tmp/m-stdin.ppm" || fail "--matrix - from standard input"
# The largest mask, 1023x1023, from a file: its identity gives the input
# back; one wider is refused by its size.
awk 'BEGIN { for (j = 0; j < 1023; j++) { r = "0"
             for (i = 1; i < 1023; i++) r = r (i == 511 && j == 511 ? ",1" : ",0")
             print r } }' >"$tmp/id1023.txt"
expect 0 --matrix @"$tmp/id1023.txt" "$tmp/c8.ppm" "$tmp/id1023.ppm" &&
  same "$tmp/c8.ppm" "$tmp/id1023.ppm"
sed 's/$/,0,0/' "$tmp/id1023.txt" >"$tmp/wide.txt"
expect 2 --matrix @"$tmp/wide.txt" "$tmp/c8.ppm" "$tmp/x.ppm" && grep -q 1023 "$tmp/err.txt" ||
  fail "a 1025-wide mask: $(cat "$tmp/err.txt")"
rm -f "$tmp/id1023.txt" "$tmp/wide.txt"

# --mask-image: a 3x2 sRGB RGBA image's weights are each pixel's luminance
# in linear light (babl's sRGB luminance) times its alpha, over their
# sum, a zero row below (computed here); the mask image gives what its
# printed weights give as --matrix; bad mask images and mixed options are
# refused, with no output.
{ printf 'P7\nWIDTH 3\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n'
  printf '\377\000\000\377\000\377\000\377\000\000\377\200'
  printf '\377\377\377\000\200\200\200\377\000\000\000\377'; } >"$tmp/mask.pam"
if expect 0 --mask-image "$tmp/mask.pam" --print-matrix; then
  awk -F'[,;]' 'function lin(c) { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ^ 2.4 }
    BEGIN { w[1] = 0.22248794; w[2] = 0.71690384; w[3] = 0.06060826 * 128 / 255
            w[5] = lin(128) * (0.22248794 + 0.71690384 + 0.06060826)
            for (i = 1; i <= 9; i++) s += w[i]
            for (i = 1; i <= 9; i++) want[i] = w[i] / s }
    { if (NF != 9) { print "a 3x3 mask expected, got " NF " values"; exit 1 }
      for (i = 1; i <= 9; i++) if ((d = $i - want[i]) > 1e-6 || d < -1e-6) {
        print "weight " i ": " $i ", want " want[i]; exit 1 } }' "$tmp/out.txt" >"$tmp/why.txt" ||
    fail "--mask-image weights: $(cat "$tmp/why.txt")"
  cp "$tmp/out.txt" "$tmp/weights.txt"
  expect 0 --mask-image "$tmp/mask.pam" "$tmp/c8.ppm" "$tmp/by-image.ppm" &&
  expect 0 --matrix @"$tmp/weights.txt" "$tmp/c8.ppm" "$tmp/by-matrix.ppm" &&
    same "$tmp/by-image.ppm" "$tmp/by-matrix.ppm"
fi
{ printf 'P5\n2 2\n255\n'; head -c 4 /dev/zero; } >"$tmp/black.pgm"
expect 2 --mask-image "$tmp/black.pgm" "$tmp/c8.ppm" "$tmp/x.ppm" && grep -q "all zero" "$tmp/err.txt" ||
  fail "an all-zero mask image: $(cat "$tmp/err.txt")"
{ printf 'P5\n1024 1\n255\n'; head -c 1024 /dev/urandom; } >"$tmp/wide.pgm"
expect 2 --mask-image "$tmp/wide.pgm" "$tmp/c8.ppm" "$tmp/x.ppm" && grep -q 1023 "$tmp/err.txt" ||
  fail "a 1024-wide mask image: $(cat "$tmp/err.txt")"
expect 2 --mask-image "$tmp/mask.pam" --shape disc "$tmp/c8.ppm" "$tmp/x.ppm"
expect 2 --mask-image "$tmp/mask.pam" --matrix 1 "$tmp/c8.ppm" "$tmp/x.ppm"
expect 2 --mask-image "$tmp/no-such.pgm" "$tmp/c8.ppm" "$tmp/x.ppm"
[ -e "$tmp/x.ppm" ] && fail "a refused mask image wrote an output"

# Shapes: the printed mask sums to 1 and gives, as a --matrix, what the
# shape gives; every shape runs.
for shape in "gaussian --radius 2.5" "disc --radius 3" "polygon --radius 4 --blades 5 --angle 10" \
             "ring --radius 4 --inner 0.4" "box --radius 1.5" "motion --radius 3 --angle 30"; do
  # shellcheck disable=SC2086
  if expect 0 --shape $shape --print-matrix; then
    cp "$tmp/out.txt" "$tmp/shape.txt"
    sum=$(tr ',;' '\n\n' <"$tmp/shape.txt" | awk '{ s += $1 } END { printf "%.9f", s }')
    [ "$sum" = "1.000000000" ] || fail "--shape $shape: the mask sums to $sum"
    # shellcheck disable=SC2086
    expect 0 --shape $shape "$tmp/c8.ppm" "$tmp/shape.ppm" &&
    expect 0 --matrix @"$tmp/shape.txt" "$tmp/c8.ppm" "$tmp/shape-matrix.ppm" &&
      same "$tmp/shape.ppm" "$tmp/shape-matrix.ppm"
  fi
done

# Where the GPU runs register, --verbose names the kernels: the 3x3 one.
if "$tool" --verbose --method register $box "$tmp/rgba.pam" "$tmp/reg.pam" >"$tmp/v.txt" 2>&1; then
  grep -q '^kernels: register 3x3$' "$tmp/v.txt" || fail "--verbose kernels: $(cat "$tmp/v.txt")"
fi

# ---- The blur's estimate and a star's mask ------------------------------------
# A photograph blurred by the tool itself: the estimate finds the disc (auto)
# and the motion line (--shape motion, as JSON) within 10% (or 0.5) of what
# made them; deconvolving by the estimate changes the image.
photo="${top_srcdir:-..}/data/photo-astronaut.ppm"
rm -f "$tmp/x.pgm" "$tmp/x.ppm"
near () { awk -v v="$1" -v w="$2" -v tol="$3" 'BEGIN { d = v - w; if (d < 0) d = -d
                                                       exit !(d <= tol) }'; }
word_after () { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"; }
expect 0 --shape disc --radius 6 "$photo" "$tmp/disc6.ppm" &&
expect 0 --estimate-blur "$tmp/disc6.ppm" &&
  grep -q '^shape disc radius [0-9.]* angle 0 confidence [0-9.]*$' "$tmp/out.txt" &&
  near "$(word_after radius "$tmp/out.txt")" 6 0.6 ||
  fail "--estimate-blur of a disc of radius 6: $(cat "$tmp/out.txt" "$tmp/err.txt")"
expect 0 --shape motion --radius 8 --angle 30 "$photo" "$tmp/motion8.ppm" &&
expect 0 --estimate-blur --shape motion --json "$tmp/motion8.ppm" &&
  if command -v python3 >/dev/null; then
    python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
sys.exit(not (e["shape"] == "motion" and abs(e["radius"] - 8) <= 0.8 and
              abs(e["angle"] - 30) <= 3 and 0 <= e["confidence"] <= 1))' "$tmp/out.txt"
  else
    grep -q '^{"shape": "motion", "radius": [0-9.]*, "angle": [0-9.]*, "confidence": [0-9.]*}$' \
      "$tmp/out.txt"
  fi || fail "--estimate-blur --json of a motion line 8 at 30: $(cat "$tmp/out.txt")"
expect 0 --deconvolve richardson-lucy --iterations 5 --shape auto --verbose \
  "$tmp/motion8.ppm" "$tmp/restored.ppm" &&
  grep -q '^estimate: shape motion radius' "$tmp/out.txt" &&
  ! cmp -s "$tmp/motion8.ppm" "$tmp/restored.ppm" ||
  fail "--deconvolve --shape auto: $(cat "$tmp/out.txt" "$tmp/err.txt")"
# On a terminal (script(1) makes one), the estimate's progress shows on
# stderr's line, and the estimate on stdout is the same.
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  script -qec "'$tool' --estimate-blur --shape disc '$tmp/disc6.ppm'" /dev/null \
    >"$tmp/tty.txt" 2>&1 &&
    grep -q 'estimating the blur of .*disc6.ppm: [0-9]*%' "$tmp/tty.txt" &&
    grep -q 'shape disc radius 6' "$tmp/tty.txt" ||
    fail "--estimate-blur's progress on a terminal: $(cat "$tmp/tty.txt")"
fi
# A region of the image: the same disc; one outside the image is refused.
expect 0 --estimate-blur --shape disc --region 64,48,128,96 "$tmp/disc6.ppm" &&
  near "$(word_after radius "$tmp/out.txt")" 6 0.6 ||
  fail "--estimate-blur --region: $(cat "$tmp/out.txt" "$tmp/err.txt")"
expect 1 --estimate-blur --region 200,0,128,96 "$tmp/disc6.ppm" &&
  grep -q "not inside" "$tmp/err.txt" || fail "a region outside: $(cat "$tmp/err.txt")"
# What gives nothing to go on is refused, saying why, and writes nothing.
{ printf 'P5\n128 128\n255\n'; head -c 16384 /dev/zero | tr '\000' '\200'; } >"$tmp/flat.pgm"
{ printf 'P5\n40 40\n255\n'; head -c 1600 /dev/urandom; } >"$tmp/tiny.pgm"
expect 1 --estimate-blur "$tmp/flat.pgm" && grep -q "flat" "$tmp/err.txt" ||
  fail "a flat image's estimate: $(cat "$tmp/err.txt")"
expect 1 --deconvolve wiener --shape auto "$tmp/flat.pgm" "$tmp/x.pgm" &&
  grep -q "flat" "$tmp/err.txt" || fail "a flat image deconvolved: $(cat "$tmp/err.txt")"
expect 1 --estimate-blur "$tmp/tiny.pgm" && grep -q "too small" "$tmp/err.txt" ||
  fail "a 40x40 image's estimate: $(cat "$tmp/err.txt")"
expect 1 --estimate-blur "$tmp/no-such.ppm"
# A star: a Gaussian spot on a dark sky makes the mask; an empty sky, a
# saturated star and a region outside the image are refused.
star () {   # the spot's peak over a background of 20 (8-bit codes), and noise
  awk -v amp="$1" -v noise="$2" 'BEGIN { srand(7); printf "P2\n64 64\n255\n"
    for (y = 0; y < 64; y++) { for (x = 0; x < 64; x++) {
      v = 20 + amp * exp(-((x - 32) ^ 2 + (y - 30) ^ 2) / 4.5) + noise * rand()
      printf "%d ", (v > 255 ? 255 : v + 0.5) }
      printf "\n" } }'
}
star 200 0 >"$tmp/star.pgm"
star 0 4 >"$tmp/sky.pgm"
star 2000 0 >"$tmp/bright.pgm"
expect 0 --star 32,30,8 "$tmp/star.pgm" "$tmp/star-out.pgm" &&
  ! cmp -s "$tmp/star.pgm" "$tmp/star-out.pgm" || fail "--star: $(cat "$tmp/err.txt")"
expect 0 --deconvolve richardson-lucy --iterations 3 --star 32,30,8 "$tmp/star.pgm" \
  "$tmp/star-rl.pgm" || fail "--deconvolve --star: $(cat "$tmp/err.txt")"
expect 1 --star 32,30,8 "$tmp/sky.pgm" "$tmp/x.pgm" && grep -q "no point source" "$tmp/err.txt" ||
  fail "--star on an empty sky: $(cat "$tmp/err.txt")"
expect 1 --star 32,30,8 "$tmp/bright.pgm" "$tmp/x.pgm" && grep -q "saturated" "$tmp/err.txt" ||
  fail "--star on a saturated star: $(cat "$tmp/err.txt")"
expect 1 --star 3,30,8 "$tmp/star.pgm" "$tmp/x.pgm" && grep -q "not inside" "$tmp/err.txt" ||
  fail "--star outside: $(cat "$tmp/err.txt")"
# Options that do not go with them: exit 2.
expect 2 --shape auto "$tmp/disc6.ppm" "$tmp/x.ppm" &&
  grep -q -- "--shape auto needs --estimate-blur or --deconvolve" "$tmp/err.txt" ||
  fail "--shape auto alone: $(cat "$tmp/err.txt")"
expect 2 --deconvolve wiener --shape auto --radius 3 "$tmp/disc6.ppm" "$tmp/x.ppm"
expect 2 --estimate-blur --shape polygon "$tmp/disc6.ppm"
expect 2 --estimate-blur --matrix 1 "$tmp/disc6.ppm"
expect 2 --estimate-blur "$tmp/disc6.ppm" "$tmp/x.ppm"
expect 2 --json "$tmp/disc6.ppm" "$tmp/x.ppm"
expect 2 --region 0,0,128 --estimate-blur "$tmp/disc6.ppm"
expect 2 --region 0,0,128,96 "$tmp/disc6.ppm" "$tmp/x.ppm"
expect 2 --star 32,30 "$tmp/star.pgm" "$tmp/x.pgm"
expect 2 --star 32,30,0 "$tmp/star.pgm" "$tmp/x.pgm"
expect 2 --star 32,30,8 --shape disc "$tmp/star.pgm" "$tmp/x.pgm"
expect 2 --star 32,30,8 --print-matrix
[ -e "$tmp/x.pgm" ] || [ -e "$tmp/x.ppm" ] && fail "a refused estimate or star wrote an output"

# ---- Bad files: exit 1, one clear line ------------------------------------
: >"$tmp/empty.pgm"
printf 'GIF89a' >"$tmp/gif.pgm"
printf 'P5\n7 5\n255\n1234' >"$tmp/trunc.pgm"
printf 'P5\n99999999 99999999\n255\n' >"$tmp/huge.pgm"
printf 'P5\n99999999999 2\n255\n' >"$tmp/overflow.pgm"
printf 'P5\n0 5\n255\n' >"$tmp/zero.pgm"
printf 'P5\n2 2\n0\n1234' >"$tmp/max0.pgm"
printf 'P5\n2 2\n70000\n12345678' >"$tmp/max70k.pgm"
printf 'P2\n2 1\n10\n5 11\n' >"$tmp/above.pgm"
printf 'P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n' >"$tmp/noend.pam"
printf 'P7\nWIDTH 2\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n1234567890' >"$tmp/depth5.pam"
printf 'P7\nWIDTH 33333333333333333333333\nHEIGHT 3\nDEPTH 4\nMAXVAL 112\nENDHDR\n12' >"$tmp/wide.pam"
printf 'P7\nWIDTH 2\nHEIGHT -1\nDEPTH 1\nMAXVAL 255\nENDHDR\n12' >"$tmp/negative.pam"
printf 'Pf\n1 1\n0\n\000\000\000\000' >"$tmp/scale0.pfm"
printf 'Pf\n1 1\n-1.0\n\000\000\300\177' >"$tmp/nan.pfm"
for f in empty.pgm gif.pgm trunc.pgm huge.pgm overflow.pgm zero.pgm max0.pgm \
         max70k.pgm above.pgm noend.pam depth5.pam wide.pam negative.pam scale0.pfm nan.pfm missing.pgm; do
  expect 1 "$tmp/$f" "$tmp/never.pgm"
  [ -e "$tmp/never.pgm" ] && fail "$f: an output was written"
done
expect 1 "$tmp/rgba.pam" "$tmp/alpha.ppm"      # PPM has no alpha
expect 1 "$tmp/g8.pgm" "$tmp/no-such-dir/x.pgm"

# ---- Bad options: exit 2, one clear line ----------------------------------
expect 2 --matrix "1,2" "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --matrix "1,x,1" "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --matrix "1,1,1;1,1" "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --matrix @"$tmp/no-such-mask.txt" "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --shape star "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --shape disc --radius 0 "$tmp/g8.pgm" "$tmp/x.pgm" && grep -q radius "$tmp/err.txt" ||
  fail "radius 0: $(cat "$tmp/err.txt")"
expect 2 --shape polygon --blades 2 "$tmp/g8.pgm" "$tmp/x.pgm" && grep -q blades "$tmp/err.txt" ||
  fail "blades 2: $(cat "$tmp/err.txt")"
expect 2 --shape polygon --blades 4.5 "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --shape ring --inner 0.99 "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --shape disc --radius 600 "$tmp/g8.pgm" "$tmp/x.pgm" && grep -q radius "$tmp/err.txt" ||
  fail "radius 600: $(cat "$tmp/err.txt")"
expect 2 --radius 3 "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --shape disc --matrix 1 "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --shape disc --print-matrix "$tmp/g8.pgm"
[ -e "$tmp/x.pgm" ] && fail "a refused shape wrote an output"
# Deconvolution: its options need it, and what the engine refuses says why
# and writes nothing; a raw file restores whole, into any format.
expect 2 --iterations 5 "$tmp/g8.pgm" "$tmp/x.pgm" && grep -q "give --deconvolve" "$tmp/err.txt" ||
  fail "--iterations alone: $(cat "$tmp/err.txt")"
expect 2 --deconvolve lucy "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --deconvolve wiener --noise x "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --deconvolve richardson-lucy --iterations 2.5 "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --deconvolve richardson-lucy --init middle "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --deconvolve richardson-lucy --iterations 0 "$tmp/g8.pgm" "$tmp/x.pgm" &&
  grep -q "iterations" "$tmp/err.txt" || fail "0 iterations: $(cat "$tmp/err.txt")"
expect 1 --deconvolve richardson-lucy --matrix "0,-1,0;-1,5,-1;0,-1,0" "$tmp/g8.pgm" \
  "$tmp/x.pgm" && grep -q "negative" "$tmp/err.txt" || fail "negative weights: $(cat "$tmp/err.txt")"
expect 2 --deconvolve wiener --noise nan --shape disc --radius 1 "$tmp/g8.pgm" "$tmp/x.pgm" &&
  grep -q "noise" "$tmp/err.txt" || fail "NaN noise: $(cat "$tmp/err.txt")"
[ -e "$tmp/x.pgm" ] && fail "a refused deconvolution wrote an output"
# The CPU when asked for; by default the GPU where one is usable.
if "$tool" --method register "$tmp/g8.pgm" "$tmp/x.pgm" 2>/dev/null; then
  ran="gpu richardson-lucy, 3 iterations by "
else
  ran="cpu richardson-lucy, 3 iterations"
fi
rm -f "$tmp/x.pgm"
for io in c8.ppm:d.ppm c8.ppm:d.pfm rgba.pam:d.pam; do
  expect 0 --deconvolve richardson-lucy --shape disc --radius 1 --iterations 3 --verbose \
    "$tmp/${io%:*}" "$tmp/${io#*:}" && grep -q "^kernels: $ran" "$tmp/out.txt" ||
    fail "deconvolve $io, want '$ran': $(cat "$tmp/out.txt" "$tmp/err.txt")"
  expect 0 --deconvolve richardson-lucy --shape disc --radius 1 --iterations 3 --verbose \
    --method cpu "$tmp/${io%:*}" "$tmp/cpu-${io#*:}" &&
    grep -q "^kernels: cpu richardson-lucy, 3 iterations$" "$tmp/out.txt" ||
    fail "deconvolve $io on the CPU: $(cat "$tmp/out.txt" "$tmp/err.txt")"
done
expect 2 --matrix @"$tmp/c8.ppm" "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --divisor 0 "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --offset nan "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --border sideways "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --method fastest "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --channels rgbx "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --channels rr "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --channels "" "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --border Black "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --bogus "$tmp/g8.pgm" "$tmp/x.pgm"
expect 2 --matrix
expect 2 "$tmp/g8.pgm"
expect 2 "$tmp/g8.pgm" "$tmp/x.gif"
expect 0 --help && grep -q -- '--matrix' "$tmp/out.txt" || fail "--help"

# ---- Raw files in strips: any strip height gives the same bytes ------------
# A 5x5 mask over 23 rows, in strips of 1 to 4 rows (the host budget) and in
# one, for every border: the rows a strip needs beyond the image come from
# the border's own rule.
{ printf 'P6\n17 23\n255\n'; head -c 1173 /dev/urandom; } >"$tmp/tall.ppm"
m5="1,2,0,-1,1;2,3,1,0,-1;0,1,4,1,0;-1,0,1,3,2;1,-1,0,2,1"
for b in zero extend wrap mirror black white; do
  expect 0 --matrix "$m5" --normalize --border $b "$tmp/tall.ppm" "$tmp/one-$b.ppm"
  for budget in 1 300 600 1200; do
    CUDA_CONVOLVE_HOST_BUDGET=$budget expect 0 --matrix "$m5" --normalize --border $b \
      "$tmp/tall.ppm" "$tmp/strips-$b-$budget.ppm" &&
      same "$tmp/one-$b.ppm" "$tmp/strips-$b-$budget.ppm"
  done
done
# PFM rows lie bottom to top: strips of a PFM, too.
expect 0 "$tmp/tall.ppm" "$tmp/tall.pfm" &&
expect 0 --matrix "$m5" --normalize --border mirror "$tmp/tall.pfm" "$tmp/one.pfm" &&
CUDA_CONVOLVE_HOST_BUDGET=900 expect 0 --matrix "$m5" --normalize --border mirror \
  "$tmp/tall.pfm" "$tmp/strips.pfm" && same "$tmp/one.pfm" "$tmp/strips.pfm"

# ---- Presets ------------------------------------------------------------------
if "$tool" --list-presets >"$tmp/presets.txt" 2>/dev/null; then
  grep -q '^box-5  *5x5  *Box blur 5x5$' "$tmp/presets.txt" ||
    fail "--list-presets: $(head -3 "$tmp/presets.txt")"
  expect 0 --preset box-3 "$tmp/tall.ppm" "$tmp/p-box3.ppm" &&
  expect 0 --matrix "1,1,1;1,1,1;1,1,1" --divisor 9 "$tmp/tall.ppm" "$tmp/m-box3.ppm" &&
    same "$tmp/p-box3.ppm" "$tmp/m-box3.ppm"
  expect 2 --preset no-such-preset "$tmp/tall.ppm" "$tmp/x.ppm" &&
    grep -q "no-such-preset" "$tmp/err.txt" || fail "unknown preset: $(cat "$tmp/err.txt")"
  expect 2 --preset box-3 --matrix 1 "$tmp/tall.ppm" "$tmp/x.ppm"
else
  echo "SKIP: presets (a build without GLib)"
fi

# ---- Many files, one run -----------------------------------------------------
mkdir -p "$tmp/in" "$tmp/batch"
cp "$tmp/g8.pgm" "$tmp/c8.ppm" "$tmp/rgba.pam" "$tmp/in/"
printf 'P5\n7 5\n255\n1234' >"$tmp/in/broken.pgm"
expect 1 $box "$tmp/in/g8.pgm" "$tmp/in/broken.pgm" "$tmp/in/c8.ppm" "$tmp/in/rgba.pam" \
  -o "$tmp/batch" 2>/dev/null
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q "broken.pgm" "$tmp/err.txt" ||
  fail "batch with a broken file: $(cat "$tmp/err.txt")"
for f in g8.pgm c8.ppm rgba.pam; do
  expect 0 $box "$tmp/in/$f" "$tmp/single-$f" && same "$tmp/single-$f" "$tmp/batch/$f"
done
[ -e "$tmp/batch/broken.pgm" ] && fail "batch: the broken file has an output"
ls -a "$tmp/batch" | grep -q partial && fail "batch: a partial file was left"
# Its own input as output, and two inputs of one name, are refused by name.
expect 1 "$tmp/in/g8.pgm" -o "$tmp/in"
mkdir -p "$tmp/in2" && cp "$tmp/g8.pgm" "$tmp/in2/"
expect 1 "$tmp/in/g8.pgm" "$tmp/in2/g8.pgm" -o "$tmp/batch2" && grep -q "already the output" "$tmp/err.txt" ||
  fail "two inputs of one name: $(cat "$tmp/err.txt")"

# ---- Interrupted: no half-written output -------------------------------------
# Noise, so that nothing makes the work cheap; the signal comes once the
# output is being written under its temporary name.
{ printf 'P6\n2000 2000\n255\n'; head -c 12000000 /dev/urandom; } >"$tmp/big.ppm"
expect 0 "$tmp/big.ppm" "$tmp/big.pfm"
# A 63x63 mask of rank above 1, so that no method makes it cheap.
ones=$(awk 'BEGIN { for (y = 0; y < 63; y++) { r = "1"; for (x = 1; x < 63; x++) r = r "," (x * y) % 7;
                      printf "%s%s", (y ? ";" : ""), r } }')
CUDA_CONVOLVE_HOST_BUDGET=8M "$tool" --method cpu --matrix "$ones" --normalize \
  "$tmp/big.pfm" "$tmp/big-out.pfm" 2>/dev/null &
pid=$!
for i in $(seq 1 100); do
  ls -a "$tmp" | grep -q partial && break
  sleep 0.1
done
kill -INT $pid 2>/dev/null
wait $pid
[ $? -ne 0 ] || fail "interrupted: the run finished before the signal"
[ -e "$tmp/big-out.pfm" ] && fail "interrupted: an output was written"
ls -a "$tmp" | grep -q partial && fail "interrupted: a temporary file was left"
rm -f "$tmp/big.ppm" "$tmp/big.pfm"

# ---- Files through GEGL: PNG, JPEG, TIFF, OpenEXR, WebP ------------------------
if ! "$tool" --help | grep -q '^Formats: PNG'; then
  echo "SKIP: PNG, JPEG, TIFF, OpenEXR and WebP (a build without GEGL)"
else
  # The row of 0 100 200 in each format: the same hand-computed linear-light
  # box (58 133 175) comes back, from 8-bit PNG, TIFF and (within its loss)
  # JPEG.
  for e in png tif; do
    expect 0 "$tmp/row.pgm" "$tmp/row.$e" &&
    expect 0 --matrix "1,1,1" --divisor 3 "$tmp/row.$e" "$tmp/row-box.$e" &&
    expect 0 "$tmp/row-box.$e" "$tmp/row-box-$e.pgm" &&
    [ "$(bytes "$tmp/row-box-$e.pgm" 3)" = " 58 133 175" ] ||
      fail "$e: box of 0 100 200 gave $(bytes "$tmp/row-box-$e.pgm" 3)"
  done
  # Round trips keep every value: 8- and 16-bit, gray and colour, with alpha.
  for f in g8.pgm c8.ppm g16.pgm rgba.pam ga16.pam; do
    for e in png tif; do
      expect 0 "$tmp/$f" "$tmp/rt-$f.$e" && expect 0 "$tmp/rt-$f.$e" "$tmp/rt-$e-$f" &&
        same "$tmp/$f" "$tmp/rt-$e-$f"
    done
  done
  # 16 bits stay 16 bits (the IHDR's bit depth), 8 stay 8.
  [ "$(od -An -tu1 -j24 -N1 "$tmp/rt-g16.pgm.png" | tr -d ' ')" = 16 ] ||
    fail "a 16-bit PNG was not written with 16 bits"
  [ "$(od -An -tu1 -j24 -N1 "$tmp/rt-g8.pgm.png" | tr -d ' ')" = 8 ] ||
    fail "an 8-bit PNG was not written with 8 bits"
  # Float stays float: PFM -> OpenEXR -> PFM gives the same floats, and so
  # does PFM -> TIFF -> PFM (linear light in a TIFF with a linear profile,
  # which GIMP opens as a linear image).
  expect 0 "$tmp/c.pfm" "$tmp/c.exr" && expect 0 "$tmp/c.exr" "$tmp/c-exr.pfm" &&
    same "$tmp/c.pfm" "$tmp/c-exr.pfm"
  expect 0 "$tmp/c.pfm" "$tmp/c.tif" && expect 0 "$tmp/c.tif" "$tmp/c-tif.pfm" &&
  [ "$(head -c 3 "$tmp/c.tif" | od -An -c | tr -d ' ')" != "" ] &&
  paste "$(tail -c 420 "$tmp/c.pfm" | od -An -v -tf4 -w4 >"$tmp/a.txt"; echo "$tmp/a.txt")" \
        "$(tail -c 420 "$tmp/c-tif.pfm" | od -An -v -tf4 -w4 >"$tmp/b.txt"; echo "$tmp/b.txt")" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-5) bad++ } END { exit bad > 0 }' ||
    fail "PFM -> float TIFF -> PFM changed values"
  printf 'Pf\n3 1\n-1.0\n' >"$tmp/f.pfm"
  printf '\000\000\000\000\000\000\000\077\000\000\200\077' >>"$tmp/f.pfm"   # 0 0.5 1
  expect 0 "$tmp/f.pfm" "$tmp/f.exr" &&
  expect 0 --matrix "1,1,1" --divisor 3 --border zero "$tmp/f.exr" "$tmp/f-box.exr" &&
  expect 0 "$tmp/f-box.exr" "$tmp/f-box.pfm" &&
  [ "$(tail -c 12 "$tmp/f-box.pfm" | od -An -tf4 | tr -s ' ')" = " 0.16666667 0.5 0.5" ] ||
    fail "float box of 0 0.5 1: $(tail -c 12 "$tmp/f-box.pfm" | od -An -tf4)"
  # --perceptual on linear float convolves sRGB-encoded values, as the
  # procedure does with linear off on a linear float layer: the box of
  # 0 0.5 1 (zero border) as the sRGB curve gives it, to 1e-6.
  for f in pfm exr; do
    { [ $f = pfm ] || expect 0 "$tmp/f.pfm" "$tmp/f.$f"; } &&
    expect 0 --perceptual --matrix "1,1,1" --divisor 3 --border zero "$tmp/f.$f" \
      "$tmp/f-pbox.$f" &&
    { [ $f = pfm ] || expect 0 "$tmp/f-pbox.$f" "$tmp/f-pbox-$f.pfm"; } &&
    tail -c 12 "$([ $f = pfm ] && echo "$tmp/f-pbox.pfm" || echo "$tmp/f-pbox-$f.pfm")" |
      od -An -v -tf4 -w4 |
      awk 'function enc(v) { return v <= 0.0031308 ? 12.92 * v : 1.055 * exp(log(v) / 2.4) - 0.055 }
           function dec(v) { return v <= 0.04045 ? v / 12.92 : exp(2.4 * log((v + 0.055) / 1.055)) }
           BEGIN { a = enc(0.5); w[1] = dec(a / 3); w[2] = dec((a + 1) / 3); w[3] = w[2] }
           { d = $1 - w[NR]; if (d < 0) d = -d; if (d > 1e-6) bad++ } END { exit bad > 0 }' ||
      fail "--perceptual box of 0 0.5 1 ($f): $(tail -c 12 "$tmp/f-pbox.$f" | od -An -tf4)"
  done
  # Files that GEGL's own tool writes: half-float OpenEXR, and a PNG in
  # ProPhoto RGB (an ICC profile, gamma 1.8).
  if ! command -v gegl >/dev/null; then
    echo "SKIP: half-float OpenEXR and an ICC profile (no gegl tool to write them)"
  else
    printf 'P6\n3 1\n255\n\000\000\000\144\144\144\310\310\310' >"$tmp/row3.ppm"
    expect 0 "$tmp/row3.ppm" "$tmp/row3.png"
    # Half stays half (each channel's type in the header's chlist is 1, not
    # 2), and the linear-light box of 0 0.127438 0.577581 read from it is
    # 0.042479 0.235006 0.427533 within half's precision.
    chlist () { od -An -tx1 -N120 "$1" | tr -d ' \n' | sed 's/.*6368616e6e656c730063686c697374//' | cut -c11-88; }
    gegl -i "$tmp/row3.png" -o "$tmp/h.exr" -- gegl:convert-format format="RGB half" &&
    expect 0 --matrix "1,1,1" --divisor 3 "$tmp/h.exr" "$tmp/h-box.exr" &&
    expect 0 "$tmp/h-box.exr" "$tmp/h-box.pfm" &&
    [ "$(chlist "$tmp/h-box.exr")" = "$(chlist "$tmp/h.exr")" ] &&
    [ "$(chlist "$tmp/h.exr" | cut -c5-6)" = 01 ] ||
      fail "half OpenEXR: channels $(chlist "$tmp/h.exr") became $(chlist "$tmp/h-box.exr")"
    tail -c 36 "$tmp/h-box.pfm" | od -An -v -tf4 -w4 |
      awk 'BEGIN { split("0.042479 0.235006 0.427533", m, " ") }
           { d = $1 - m[int((NR - 1) / 3) + 1]; if (d < 0) d = -d; if (d > 5e-4) bad++ }
           END { exit NR != 9 || bad > 0 }' ||
      fail "half OpenEXR box: $(tail -c 36 "$tmp/h-box.pfm" | od -An -tf4)"
    # In ProPhoto the row is 0 81 188, linear (c/255)^1.8 = 0 0.126890
    # 0.577823; the box's means 0.042297 0.234904 0.427512 are codes 43.98
    # 114.03 159.05.  sRGB's curve would give 46 122 162.  The profile is kept.
    iccp () {   # the compressed profile of a PNG's iCCP chunk (its name left out), in hex
      od -An -tx1 -v "$1" | tr -s ' \n' '\n\n' | awk 'NF { b[n++] = $1 }
        function digit(c) { return index("0123456789abcdef", c) - 1 }
        function hex(s) { return digit(substr(s, 1, 1)) * 16 + digit(substr(s, 2, 1)) }
        END {
          for (i = 4; i + 3 < n; i++)
            if (b[i] b[i + 1] b[i + 2] b[i + 3] == "69434350") {
              len = ((hex(b[i - 4]) * 256 + hex(b[i - 3])) * 256 + hex(b[i - 2])) * 256 + hex(b[i - 1])
              for (j = i + 4; b[j] != "00"; j++) ;
              for (k = j + 2; k < i + 4 + len; k++) printf "%s", b[k]
              exit
            }
        }'
    }
    gegl -- gegl:load path="$tmp/row3.png" gegl:convert-space space-name=ProPhoto \
      gegl:png-save path="$tmp/pro.png" bitdepth=8 2>/dev/null &&
    expect 0 --matrix "1,1,1" --divisor 3 "$tmp/pro.png" "$tmp/pro-box.png" &&
    expect 0 "$tmp/pro.png" "$tmp/pro.pam" && expect 0 "$tmp/pro-box.png" "$tmp/pro-box.pam" &&
    [ "$(bytes "$tmp/pro.pam" 12)" = " 0 0 0 255 81 81 81 255 188 188 188 255" ] &&
    [ "$(bytes "$tmp/pro-box.pam" 12)" = " 44 44 44 255 114 114 114 255 159 159 159 255" ] ||
      fail "ProPhoto box: $(bytes "$tmp/pro.pam" 12) gave $(bytes "$tmp/pro-box.pam" 12)"
    [ -n "$(iccp "$tmp/pro.png")" ] && [ "$(iccp "$tmp/pro-box.png")" = "$(iccp "$tmp/pro.png")" ] ||
      fail "the ProPhoto profile was not kept"
  fi
  # JPEG and WebP are lossy: the shape comes back, and JPEG's values nearly.
  expect 0 "$tmp/tall.ppm" "$tmp/tall.jpg" && expect 0 "$tmp/tall.jpg" "$tmp/tall-j.ppm" &&
    [ "$(head -c 13 "$tmp/tall-j.ppm" | od -c)" = "$(printf 'P6\n17 23\n255\n' | od -c)" ] ||
    fail "JPEG round trip: $(head -c 15 "$tmp/tall-j.ppm")"
  expect 0 "$tmp/g8.pgm" "$tmp/g8.jpg" && expect 0 "$tmp/g8.jpg" "$tmp/g8-j.pgm" &&
    [ "$(head -c 2 "$tmp/g8-j.pgm")" = P5 ] || fail "a gray JPEG did not stay gray"
  expect 0 "$tmp/rgba.pam" "$tmp/rgba.webp" && expect 0 "$tmp/rgba.webp" "$tmp/rgba-w.pam" &&
    grep -aq 'RGB_ALPHA' "$tmp/rgba-w.pam" || fail "WebP round trip lost alpha"

  # The blur's estimate reads a PNG as GIMP would: the PPM's estimate.
  expect 0 --estimate-blur --shape disc "$tmp/disc6.ppm" && mv "$tmp/out.txt" "$tmp/est-ppm.txt" &&
  expect 0 "$tmp/disc6.ppm" "$tmp/disc6.png" &&
  expect 0 --estimate-blur --shape disc "$tmp/disc6.png" && same "$tmp/est-ppm.txt" "$tmp/out.txt"

  # Damaged files of each format: exit 1, one line naming the file.
  awk 'BEGIN { printf "P6\n300 200\n255\n"; for (i = 0; i < 180000; i++) printf "%c", (i * 7) % 251 }' \
    >"$tmp/photo.ppm"
  for e in png jpg tif exr webp; do
    expect 0 "$tmp/photo.ppm" "$tmp/photo.$e" || continue
    n=$(wc -c <"$tmp/photo.$e")
    head -c $((n / 2)) "$tmp/photo.$e" >"$tmp/half.$e"
    head -c 20 "$tmp/photo.$e" >"$tmp/head.$e"
    for f in half.$e head.$e; do
      expect 1 "$tmp/$f" "$tmp/never.png" && grep -q "$f" "$tmp/err.txt" ||
        fail "$f: $(cat "$tmp/err.txt")"
      [ -e "$tmp/never.png" ] && fail "$f: an output was written"
    done
  done
  # A batch of PNGs with a damaged one among them.
  mkdir -p "$tmp/pngs" "$tmp/pngs-out"
  for f in g8 c8 rgba; do cp "$tmp/rt-$f.p"*".png" "$tmp/pngs/$f.png"; done
  cp "$tmp/half.png" "$tmp/pngs/"
  expect 1 --preset box-3 "$tmp/pngs/"*.png -o "$tmp/pngs-out"
  [ "$(ls "$tmp/pngs-out" | tr '\n' ' ')" = "c8.png g8.png rgba.png " ] ||
    fail "PNG batch wrote: $(ls -a "$tmp/pngs-out")"
fi

# ---- The settings' table (tests/test-settings --print) ------------------------
# Each number setting is an option whose help gives the table's range and
# default, taken at its bounds and refused just past them (with
# --print-matrix, which needs no FFTW for Wiener's); each choice's default
# is named in the help.
"${top_builddir:-.}/tests/test-settings" --print >"$tmp/table.tsv" ||
  fail "test-settings --print"
"$tool" --help >"$tmp/help.txt"
tr '\n' ' ' <"$tmp/help.txt" | tr -s ' ' >"$tmp/help1.txt"
while IFS='	' read -r name type min max def label_blurb; do
  case $name in
    radius|angle|blades|inner) ctx="--shape motion"; [ "$name" = blades ] && ctx="--shape polygon"
                               [ "$name" = inner ] && ctx="--shape ring" ;;
    iterations|tv-weight) ctx="--deconvolve richardson-lucy" ;;
    noise) ctx="--deconvolve wiener" ;;
    *) ctx= ;;
  esac
  case $type in
    int|double)
      grep -q -- "--$name " "$tmp/help.txt" || { fail "--help has no --$name"; continue; }
      d=$(printf '%g' "$def")
      grep -q -- "default $d)" "$tmp/help1.txt" || fail "--help: no 'default $d' for --$name"
      [ -n "$ctx" ] || continue
      lo=$(printf '%g' "$min"); hi=$(printf '%g' "$max")
      below=$(awk -v v="$min" -v t="$type" 'BEGIN { print (t == "int" ? v - 1 : v - 0.001) }')
      grep -q -- "($lo to $hi, default $d)" "$tmp/help1.txt" ||
        grep -q -- "($lo or more, default $d)" "$tmp/help1.txt" ||
        fail "--help: --$name's range is not the table's ($lo to $hi)"
      expect 0 $ctx "--$name" "$lo" --print-matrix ||
        fail "--$name $lo (its minimum) refused"
      expect 2 $ctx "--$name" "$below" --print-matrix ||
        fail "--$name $below (below its minimum) taken"
      case $hi in *e+*) continue ;; esac
      above=$(awk -v v="$max" -v t="$type" 'BEGIN { print (t == "int" ? v + 1 : v + 0.001) }')
      expect 0 $ctx "--$name" "$hi" --print-matrix ||
        fail "--$name $hi (its maximum) refused"
      expect 2 $ctx "--$name" "$above" --print-matrix ||
        fail "--$name $above (past its maximum) taken"
      ;;
    choice)
      grep -q -- "default $def)" "$tmp/help1.txt" || fail "--help: no 'default $def'" ;;
  esac
done <"$tmp/table.tsv"
[ "$(wc -l <"$tmp/table.tsv")" -ge 20 ] || fail "the table has $(wc -l <"$tmp/table.tsv") rows"

echo "test-tool: $failures failure(s)"
[ "$failures" -eq 0 ]
