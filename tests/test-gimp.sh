#!/bin/sh
# plug-in-cuda-convolve in real GIMP 3: one GIMP start runs the Python suite
# (tests/gimp/procedure.py), one the Script-Fu suite (procedure.scm, both
# procedures), one plug-in-cuda-deconvolve's (deconvolve.py, against the
# tool), one the comparison with GIMP's own Convolution Matrix (parity.py); these run
# without the GEGL operation, so the procedure moves the pixels itself (its
# fallback).  Then with the operation: its suite (op.py), cuda:deconvolve's
# (deconvolve-op.py, with its refusals' words in GIMP's log), parity and
# deconvolve.py again (the procedures now apply through the operations),
# the tool's files against GIMP's own (files.py), GEGL threads and a
# fault.  All of that on the CPU; where a GPU is usable, the suites again
# on it, with gpu.py and GPU faults.  GIMP runs the build tree's plug-in and
# operation through a scratch profile and GEGL_PATH, whatever copies are
# installed, and the suites stop if GIMP loads any other.  Skips (77) only
# where GIMP 3 cannot be found.
#
# CC_INSTALLED=1: the same against the release as its install.sh put it for
# this user (a scratch HOME: the test adds presets to the profile): the
# plug-in in GIMP's own profile, the operation in GEGL's user module
# folder, the tool in ~/.local/bin, the presets they find themselves.
# CC_GIMP_SUITES_ELSEWHERE=WHY skips (77), saying why (scripts/test.sh).
set -u
if [ -n "${CC_GIMP_SUITES_ELSEWHERE:-}" ]; then
  echo "SKIP: the GIMP suites: $CC_GIMP_SUITES_ELSEWHERE"
  exit 77
fi
srcdir="${top_srcdir:-.}"
builddir="${top_builddir:-.}"
gimp=$(sh "$srcdir/scripts/gimp-console.sh") || {
  echo "SKIP: GIMP 3's console (gimp-console-3) not found"
  exit 77
}
tmp=$(mktemp -d)
if [ -n "${CC_INSTALLED:-}" ]; then
  # GIMP's own profile for this user, as libgimp names it.
  profile=$(python3 -c 'import gi; gi.require_version("Gimp", "3.0")
from gi.repository import Gimp; print(Gimp.directory())' 2>/dev/null)
  plug_ins="$profile/plug-ins"
  data="${XDG_DATA_HOME:-$HOME/.local/share}"
  tool="$HOME/.local/bin/cuda-convolve"
  presets="$profile/plug-in-cuda-convolve/presets"
  module="$data/gegl-0.4/plug-ins/cuda-convolve-gpl3.so"
  [ -f "$module" ] || module=
  trap 'rm -rf "$tmp" "$presets/my-blur.preset" "$presets/broken.preset" "$presets/box-3.preset"' EXIT
  export GIMP3_DIRECTORY="$profile"
else
  # An absolute path: the kill below tells this run's plug-in by it from
  # another test run's on the same machine.
  plug_ins="$(cd "$builddir" && pwd)/plug-ins"
  data="$tmp/data"
  tool="$(cd "$builddir" && pwd)/tools/cuda-convolve"
  trap 'rm -rf "$tmp"' EXIT
  export GIMP3_DIRECTORY="$tmp/profile"
  presets="$GIMP3_DIRECTORY/plug-in-cuda-convolve/presets"
  # This build's plug-in first on GIMP's path, and GEGL's module folders
  # with this build's operation (gegl-build) and with none (gegl-none),
  # whatever copies make install or a release put in GIMP's and GEGL's own
  # folders.
  module=
  [ ! -f "$builddir/gegl/cuda-convolve-gpl3.so" ] ||
    module="$GIMP3_DIRECTORY/gegl-build/cuda-convolve-gpl3.so"
  sh "$srcdir/scripts/gimp-profile.sh" "$GIMP3_DIRECTORY" "$plug_ins" \
    ${module:+"$builddir/gegl/cuda-convolve-gpl3.so"} || exit 1
fi
plug_in="$plug_ins/plug-in-cuda-convolve/plug-in-cuda-convolve"
if [ ! -x "$plug_in" ]; then
  echo "SKIP: no plug-in in $plug_ins (configured without GIMP, or not installed)"
  exit 77
fi
use_gegl_modules ()   # none | build: the operation's module GEGL loads
{
  [ -n "${CC_INSTALLED:-}" ] || export GEGL_PATH="$GIMP3_DIRECTORY/gegl-$1"
}

# Which copies GIMP loads, by its own records: the plug-in it registers
# (its pluginrc) and the operation's module mapped into its process.  The
# suites would test any other copy and say nothing, so they stop instead.
use_gegl_modules build
[ -z "${CC_INSTALLED:-}" ] || export XDG_DATA_HOME="$data"
timeout 300 "$gimp" -i --batch-interpreter=python-fu-eval -b "import os; print('mapped:', \
  *sorted({l.split()[-1] for l in open('/proc/%d/maps' % os.getppid()) \
           if l.rstrip().endswith('/cuda-convolve-gpl3.so')}))" --quit >"$tmp/which.log" 2>&1
registered=$(sed -n 's/^(plug-in-def "\([^"]*\/plug-in-cuda-convolve\)" .*/\1/p' \
               "$GIMP3_DIRECTORY/pluginrc" 2>/dev/null | sed "s|\${gimp_dir}|$GIMP3_DIRECTORY|")
mapped=$(sed -n 's/^mapped: *//p' "$tmp/which.log")
if [ "$registered" != "$plug_in" ]; then
  echo "FAIL: GIMP registers another plug-in-cuda-convolve: '$registered', not this run's"
  echo "      $plug_in; the suites stop.  GIMP said: $(grep -i 'duplicate' "$tmp/which.log")"
  exit 1
fi
if [ -n "$module" ] && [ "$mapped" != "$(readlink -f "$module")" ]; then
  echo "FAIL: GIMP loads another cuda:convolve module: '$mapped', not this run's"
  echo "      $(readlink -f "$module"); the suites stop"
  exit 1
fi
echo "ok   - GIMP runs this plug-in, $plug_in${module:+, and this operation, $mapped}"

# The runs before the operation's must not see it, nor any the user has.
export XDG_DATA_HOME="$tmp/no-data"
use_gegl_modules none
mkdir -p "$presets"
# The user's presets: one good, one broken (skipped with a message), and one
# that tries to take a shipped id (ignored: the shipped one wins).
printf '[Preset]\nName=My blur\nWidth=3\nHeight=1\nRow1=1,2,1\nDivisor=4\n' >"$presets/my-blur.preset"
printf '[Preset]\nName=Broken\nWidth=2\n' >"$presets/broken.preset"
printf '[Preset]\nName=Fake box\nWidth=1\nHeight=1\nRow1=7\n' >"$presets/box-3.preset"

# The CPU path first, pinned, so that these results are the same everywhere.
export CUDA_CONVOLVE_NO_GPU=1 CC_TEST_DIR="$srcdir/tests/gimp" PYTHONDONTWRITEBYTECODE=1
# CC_CPU_WIENER=1 where Wiener runs on the CPU, through FFTW (the release
# always has it); 0 in a build configured --without-fftw, where the suites
# check the CPU's refusal instead.  It means the same on a GPU (CC_GPU):
# Wiener runs there, but a job the engine leaves to the CPU is refused.
# no_wiener: that refusal's words in GIMP's log.
# A build tree carried without its config.h (to the GPU machine) asks the
# tool, on the CPU, with a small probe that the GPU's questions below use too.
no_wiener=
printf 'P5\n3 3\n255\n012345678' >"$tmp/probe.pgm"
if [ -n "${CC_INSTALLED:-}" ] || grep -q '^#define HAVE_FFTW 1' "$builddir/config.h" 2>/dev/null ||
   { [ ! -f "$builddir/config.h" ] && CUDA_CONVOLVE_NO_GPU=1 "$tool" --deconvolve wiener \
       --shape disc --radius 1 "$tmp/probe.pgm" "$tmp/probe-out.pgm" 2>/dev/null; }; then
  export CC_CPU_WIENER=1
else
  export CC_CPU_WIENER=0
  no_wiener="Wiener deconvolution needs FFTW, which this build is without"
fi

status=0
run ()   # interpreter, batch command, log name
{
  timeout 600 "$gimp" -i --batch-interpreter="$1" -b "$2" --quit >"$tmp/$3.log" 2>&1
  rc=$?
  grep -E '^(ok|FAIL) |checks|^SKIP: |^parity:|^files:|^GPU in GIMP:' "$tmp/$3.log"
  if [ $rc -ne 0 ] || grep -q '^FAIL ' "$tmp/$3.log"; then
    echo "$3: GIMP exited with $rc; its output:"
    cat "$tmp/$3.log"
    status=1
  fi
}
run python-fu-eval "exec(open('$srcdir/tests/gimp/procedure.py').read())" python
run plug-in-script-fu-eval "(load \"$srcdir/tests/gimp/procedure.scm\")" script-fu
# plug-in-cuda-deconvolve on its own pixel path: its results against the
# tool's on the same pixels.
mkdir -p "$tmp/deconvolve"
CC_TOOL="$tool" CC_SCRATCH="$tmp/deconvolve" \
  run python-fu-eval "exec(open('$srcdir/tests/gimp/deconvolve.py').read())" deconvolve
# The same pixels as GIMP's own Convolution Matrix.
run python-fu-eval "exec(open('$srcdir/tests/gimp/parity.py').read())" parity
# Short starts under other environments: a host budget of a few rows (the
# plug-in works in many bands), an injected engine failure, a kill.
env_test="exec(open('$srcdir/tests/gimp/environment.py').read())"
CC_TEST_MODE=bands CUDA_CONVOLVE_HOST_BUDGET=2000 run python-fu-eval "$env_test" bands
CC_TEST_MODE=fault CUDA_CONVOLVE_FAULT=cpu run python-fu-eval "$env_test" fault

# GIMP's Cancel kills the plug-in: so does this, half a second into the one
# long call of the "killed" start, and notes when.
plug_in_pid ()   # this run's plug-in running a procedure (GIMP passes -run), not a query
{
  for d in /proc/[0-9]*; do
    case "$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")" in
      "$plug_in "*-run*) echo "${d#/proc/}"; return ;;
    esac
  done
}
# Clock ticks a process has run for (user and system), 0 once it is gone.
cpu_ticks ()
{
  awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# It looks for the plug-in for as long as the GIMP run lasts: on a loaded
# machine the call may start late.
kill_plug_in ()
{
  while [ ! -e "$tmp/killed-run-over" ]; do
    pid=$(plug_in_pid)
    if [ -n "$pid" ]; then
      # Into its computation, whatever the machine: once it has used half a
      # second of CPU time on all its threads together, not a fixed time
      # in, which a machine of many cores can outrun.
      j=0
      while [ -d "/proc/$pid" ] && [ "$(cpu_ticks "$pid")" -lt 50 ] && [ $j -lt 400 ]; do
        sleep 0.02
        j=$((j + 1))
      done
      # The time first: GIMP may report the death before a later write.
      date +%s.%N >"$tmp/killed"
      kill -9 "$pid" 2>/dev/null || rm -f "$tmp/killed"
      return
    fi
    sleep 0.05
  done
}
kill_plug_in &
killer=$!
CC_TEST_MODE=killed CC_KILL_FILE="$tmp/killed" run python-fu-eval "$env_test" killed
: >"$tmp/killed-run-over"
wait $killer 2>/dev/null

# GIMP's log (the run's, by its log name) holds cuda:deconvolve's refusal
# with these words once: the operation passes its input through and warns.
said_once ()
{
  said=$(grep -F "cuda:deconvolve: " "$tmp/$1.log" | grep -F "$2" |
         grep -F "the input is passed through unchanged")
  if [ -n "$said" ] && [ "$(printf '%s\n' "$said" | wc -l)" -eq 1 ]; then
    echo "ok   - cuda:deconvolve's refusal, said once: ${said#*cuda:deconvolve: }"
  else
    echo "FAIL - cuda:deconvolve's refusal did not say '$2' once in $1:"
    printf '%s\n' "$said"; status=1
  fi
}

# With the GEGL operation where GEGL looks for modules: the procedure then
# applies through it.  The runs above had none, so they covered the
# plug-in's own pixel path, the fallback.
if [ -n "$module" ]; then
  use_gegl_modules build
  export XDG_DATA_HOME="$data" CC_GEGL_DIR="$tmp/gegl" CC_TOOL="$tool"
  # The build tree's operation and tool find the shipped presets here; the
  # installed ones find their own.
  [ -n "${CC_INSTALLED:-}" ] || export CUDA_CONVOLVE_PRESET_DIR="$srcdir/presets"
  mkdir -p "$CC_GEGL_DIR"
  # The gegl tool on a PNG and a float TIFF, for op.py to compare.
  cp "$srcdir/data/sample.png" "$CC_GEGL_DIR/in.png"
  gegl -i "$srcdir/data/sample.png" -o "$CC_GEGL_DIR/in.tif" -- \
    gegl:convert-format format="RGBA float" 2>"$tmp/gegl.log" &&
  for f in in.png in.tif; do
    gegl -i "$CC_GEGL_DIR/$f" -o "$CC_GEGL_DIR/out-$f" -- cuda:convolve preset=gaussian-5 \
      2>>"$tmp/gegl.log" || { echo "FAIL gegl tool on $f:"; cat "$tmp/gegl.log"; status=1; }
  done
  run python-fu-eval "exec(open('$srcdir/tests/gimp/op.py').read())" op
  run python-fu-eval "exec(open('$srcdir/tests/gimp/deconvolve-op.py').read())" deconvolve-op
  # Both procedures and both operations against the settings' table: the
  # build's own, or the release's (CC_SETTINGS_TABLE, test-release.sh).
  table=${CC_SETTINGS_TABLE:-}
  if [ -z "$table" ] && "$builddir/tests/test-settings" --print >"$tmp/settings.tsv" 2>/dev/null; then
    table=$tmp/settings.tsv
  fi
  if [ -s "$table" ]; then
    CC_SETTINGS_TABLE=$table \
      run python-fu-eval "exec(open('$srcdir/tests/gimp/settings.py').read())" settings
  else
    echo "SKIP: the settings' table: no tests/test-settings in $builddir, no CC_SETTINGS_TABLE"
  fi
  # Each mask the suite's deconvolution refused said why in GIMP's log, once;
  # so did Wiener, where the CPU has none.
  for word in "Richardson-Lucy takes no negative weights" "a blur has no offset" \
              "weights add up to more than 0; this mask's add up to 0" \
              "matrix: expected a number" "width and height must be odd" \
              "the divisor must be a non-zero" "aux: the mask image is all zero" \
              ${no_wiener:+"$no_wiener"}; do
    said_once deconvolve-op "$word"
  done
  # The procedure's suite again, now through the operation.
  export CC_OP=1
  run python-fu-eval "exec(open('$srcdir/tests/gimp/procedure.py').read())" procedure-op
  CC_SCRATCH="$tmp/deconvolve" \
    run python-fu-eval "exec(open('$srcdir/tests/gimp/deconvolve.py').read())" deconvolve-op-proc
  [ -z "$no_wiener" ] || said_once deconvolve-op-proc "$no_wiener"
  run python-fu-eval "exec(open('$srcdir/tests/gimp/parity.py').read())" parity-op
  # The tool's outputs of files GIMP exported, opened in GIMP beside the
  # procedure's result on GIMP's own load of each file.
  mkdir -p "$tmp/files"
  CC_FILES_DIR="$tmp/files" \
    run python-fu-eval "exec(open('$srcdir/tests/gimp/files.py').read())" files
  # Eight GEGL threads give one's result.
  for n in 1 8; do
    GEGL_THREADS=$n CC_TEST_MODE=save CC_TEST_SAVE="$tmp/threads-$n" \
      run python-fu-eval "exec(open('$srcdir/tests/gimp/op.py').read())" "threads-$n"
  done
  if cmp -s "$tmp/threads-1" "$tmp/threads-8"; then
    echo "ok   - GEGL_THREADS=8 gives GEGL_THREADS=1's result, byte for byte"
  else
    echo "FAIL - GEGL_THREADS=8 and 1 differ"; status=1
  fi
  # The engine's CPU memory failing inside GIMP's process: the operation
  # passes the input through with a warning, and GIMP carries on.
  CUDA_CONVOLVE_FAULT=cpu CC_TEST_MODE=fault-op \
    run python-fu-eval "exec(open('$srcdir/tests/gimp/op.py').read())" fault-op

  # Where a GPU is usable (not on CI's machines): the procedure, the
  # operation, parity and the files again with the GPU in GIMP's process,
  # its results against the CPU's (gpu.py), and GPU faults there: failed
  # launches and allocations, and a trap that leaves CUDA unusable for the
  # rest of GIMP's session.  Each fault's warning is printed once.
  if env -u CUDA_CONVOLVE_NO_GPU "$tool" --method register \
       "$tmp/probe.pgm" "$tmp/probe-out.pgm" 2>"$tmp/probe.log"; then
    unset CUDA_CONVOLVE_NO_GPU
    export CC_GPU=1
    CUDA_CONVOLVE_GPU_BLOCK=300000 \
      run python-fu-eval "exec(open('$srcdir/tests/gimp/gpu.py').read())" gpu
    run python-fu-eval "exec(open('$srcdir/tests/gimp/procedure.py').read())" procedure-gpu
    CC_SCRATCH="$tmp/deconvolve" \
      run python-fu-eval "exec(open('$srcdir/tests/gimp/deconvolve.py').read())" \
      deconvolve-gpu
    run python-fu-eval "exec(open('$srcdir/tests/gimp/op.py').read())" op-gpu
    run python-fu-eval "exec(open('$srcdir/tests/gimp/deconvolve-op.py').read())" \
      deconvolve-op-gpu
    # Wiener's jobs the GPU leaves to the CPU (a wrapped prime side).
    if [ -n "$no_wiener" ]; then
      said_once deconvolve-gpu "$no_wiener"
      said_once deconvolve-op-gpu "$no_wiener"
    fi
    run python-fu-eval "exec(open('$srcdir/tests/gimp/parity.py').read())" parity-gpu
    CC_FILES_DIR="$tmp/files" \
      run python-fu-eval "exec(open('$srcdir/tests/gimp/files.py').read())" files-gpu
    for fault in launch alloc trap; do
      CUDA_CONVOLVE_FAULT=$fault CC_TEST_MODE=$fault \
        run python-fu-eval "exec(open('$srcdir/tests/gimp/gpu.py').read())" "gpu-$fault"
      said=$(grep -o 'cuda:convolve: .*' "$tmp/gpu-$fault.log")
      if [ -n "$said" ] && [ -z "$(printf '%s\n' "$said" | sort | uniq -d)" ]; then
        printf '%s\n' "$said" | awk -v f="$fault" '{ print "ok   - " f " fault, said once: " $0 }'
      else
        echo "FAIL - $fault fault: GIMP's log has no warning, or one twice:"
        printf '%s\n' "$said"; status=1
      fi
    done
    # The GPU as one newer than the build's cubins: the driver made to
    # compile the PTX (where the build has PTX for it, as the release has),
    # its cache empty.  The op does not wait for the compile; the plug-in's
    # own path says it in GIMP's progress bar and on GIMP's terminal.
    if CUDA_FORCE_PTX_JIT=1 CUDA_CACHE_PATH="$tmp/jit-probe" "$tool" --method register \
         "$tmp/probe.pgm" "$tmp/probe-out.pgm" 2>"$tmp/jit-probe.log"; then
      CUDA_FORCE_PTX_JIT=1 CUDA_CACHE_PATH="$tmp/jit-cache" CC_TEST_MODE=jit \
        run python-fu-eval "exec(open('$srcdir/tests/gimp/gpu.py').read())" gpu-jit
      if said=$(grep -m1 -o 'plug-in-cuda-convolve: Compiling the GPU kernels.*' "$tmp/gpu-jit.log"); then
        echo "ok   - the plug-in's progress while its kernels compile: $said"
      else
        echo "FAIL - the plug-in said nothing of its kernels' compile"; status=1
      fi
      if said=$(grep -m1 -o 'cuda:convolve: the driver is compiling.*' "$tmp/gpu-jit.log"); then
        echo "ok   - the operation's word for a GPU method meanwhile: $said"
      else
        echo "FAIL - the operation said nothing where a GPU method took the CPU"; status=1
      fi
    else
      echo "SKIP: the kernels compiled from the PTX: $(tail -1 "$tmp/jit-probe.log")"
    fi
  else
    echo "SKIP: the suites on the GPU: $(cat "$tmp/probe.log")"
  fi
fi
exit $status
