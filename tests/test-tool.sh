#!/bin/sh
# cuda-convolve end to end: format round trips, a hand-computed result, and
# clear refusals of bad files and bad options.
set -u
tool="${top_builddir:-.}/tools/cuda-convolve"
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
expect 2 "$tmp/g8.pgm" "$tmp/x.png"
expect 0 --help && grep -q -- '--matrix' "$tmp/out.txt" || fail "--help"

echo "test-tool: $failures failure(s)"
[ "$failures" -eq 0 ]
