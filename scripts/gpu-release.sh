#!/bin/sh
# On the GPU machine, through the gimp-on-gpu bundle (.gpubundle, packed
# with GIMP_ROOT=the forky root, so GIMP 3.2): test-gpu and the fft bench
# from .gpubundle/extra.tar.xz (tests/test-gpu, bench/bench of this build),
# GIMP's bench (bench/gimp-bench.py) on _build, then the release tarball in
# .gpubundle (built CUDA_ARCH=sm_90 CUDA_PTX=compute_80) installed for a new
# user with the driver alone (GPU_GIMP_TOOLKIT=0), the GIMP suites against
# it, and its first use through the PTX (CUDA_FORCE_PTX_JIT=1, an empty JIT
# cache) against through the cubin.  Logs in $OUT.
# jit-ptx: the same first uses from a PTX-only release (.gpubundle/ptx-only.tar.xz,
# CUDA_ARCH=none CUDA_PTX=compute_80), its JIT cache empty, then warm.
# flatpak: the release installed into Flathub's GIMP, emulated, the GPU there.
#   scripts/gpu-release.sh [STEP...]   steps: gpu bench gimp-bench release jit jit-ptx flatpak
set -u
out=${OUT:-/tmp/gpu-release}
mkdir -p "$out" _build
run () { bash .gpubundle/run.sh "$@"; }
secs () { echo "$(( $(date +%s) - $1 )) s"; }
steps=${*:-gpu bench gimp-bench release jit}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
[ ! -f .gpubundle/extra.tar.xz ] || xz -dc .gpubundle/extra.tar.xz | tar -xf - -C _build
# The bundle's slim root lost ln, sed, realpath and comm (pack.sh keeps the
# names its list ends its lines with only by accident): the machine's own.
run true
for c in ln sed realpath comm; do
  [ -x "${GPU_GIMP_ROOT:-/tmp/gimp-root}/usr/bin/$c" ] || cp "$(command -v $c)" "${GPU_GIMP_ROOT:-/tmp/gimp-root}/usr/local/bin/"
done
for step in $steps; do
  start=$(date +%s)
  case $step in
    gpu)
      run _build/tests/test-gpu >"$out/test-gpu.log" 2>&1
      echo "test-gpu: exit $?, $(secs $start)"
      grep -E '^(not ok|FAIL)|^GPU|^sweep|^walks|^fft|^3x3|^odd' "$out/test-gpu.log" | head -20 ;;
    bench)
      run _build/bench/bench --only fft --no-1d >"$out/bench.log" 2>&1
      echo "bench fft: exit $?, $(secs $start)"; grep -A8 "^fft's transforms" "$out/bench.log"
      grep -E '^\| (31x31|63x63|127x127) ' "$out/bench.log" ;;
    gimp-bench)
      BENCH_RUNS=5 BENCH_ONLY=masks run scripts/run-gimp.sh python-fu-eval \
        "exec(open('bench/gimp-bench.py').read())" >"$out/gimp-bench.log" 2>&1
      echo "gimp-bench: exit $?, $(secs $start)"; grep -E '^\||^targets|^image' "$out/gimp-bench.log" ;;
    release)
      tarball=$(ls .gpubundle/gimp-cuda-convolve-*-linux-x86_64.tar.xz | head -1)
      GPU_GIMP_TOOLKIT=0 run sh -c 'set -e; export HOME=/tmp/user-home; rm -rf "$HOME";
        mkdir -p "$HOME"; tar -xJf "$1" -C "$HOME"; sh "$HOME"/gimp-cuda-convolve-*/install.sh;
        ls /usr/local/cuda /usr/local/cuda/lib64/libcufft.so.12 2>&1 | head -2;
        CC_INSTALLED=1 top_srcdir=. sh tests/test-gimp.sh' sh "$tarball" >"$out/release.log" 2>&1
      echo "release suites, driver alone: exit $?, $(secs $start)"
      grep -E 'installed|cuda|checks, |^files: |^SKIP|^FAIL|said once|GEGL_THREADS|fft ran' "$out/release.log" | head -60 ;;
    jit)
      # The installed tool's first use through the PTX (CUDA_FORCE_PTX_JIT=1:
      # the driver compiles it every time, as on a GPU newer than the
      # cubins), what it said meanwhile, and its output against the cubins'.
      GPU_GIMP_TOOLKIT=0 run sh -c 'export HOME=/tmp/user-home; t=$HOME/.local/bin/cuda-convolve
        printf "P6\n512 512\n255\n" >/tmp/jit.ppm; head -c 786432 /dev/urandom >>/tmp/jit.ppm
        el () { echo "$(date +%s.%N) $1" | awk "{ printf \"%.2f\", \$1 - \$2 }"; }
        for m in register separable fft; do
          case $m in separable) shape="--shape gaussian --radius 12" ;; *) shape="--shape disc --radius 2" ;; esac
          s=$(date +%s.%N); CUDA_FORCE_PTX_JIT=1 CUDA_CACHE_PATH=/tmp/jit "$t" --verbose --method $m $shape /tmp/jit.ppm /tmp/jit-ptx.ppm >/tmp/jit.out 2>/tmp/jit.err
          rc=$?; e=$(el $s)
          s=$(date +%s.%N); "$t" --method $m $shape /tmp/jit.ppm /tmp/jit-cubin.ppm; c=$(el $s)
          echo "$m: PTX exit $rc, $e s (cubins $c s); $(grep -o "kernels: .*" /tmp/jit.out); said: $(cat /tmp/jit.err); bytes unlike the cubins: $(cmp -l /tmp/jit-ptx.ppm /tmp/jit-cubin.ppm | wc -l)"
        done' >"$out/jit.log" 2>&1
      echo "jit: $(secs $start)"; cat "$out/jit.log" ;;
    jit-ptx)
      GPU_GIMP_TOOLKIT=0 run sh -c 'export HOME=/tmp/ptx-home; rm -rf "$HOME" /tmp/jit-ptx; mkdir -p "$HOME"
        tar -xJf .gpubundle/ptx-only.tar.xz -C "$HOME"; t=$(ls -d "$HOME"/gimp-cuda-convolve-*)/bin/cuda-convolve
        printf "P6\n512 512\n255\n" >/tmp/jit.ppm; head -c 786432 /dev/urandom >>/tmp/jit.ppm
        for pass in cold warm; do for m in register fft; do
          s=$(date +%s.%N); CUDA_CACHE_PATH=/tmp/jit-ptx "$t" --verbose --method $m --shape disc --radius 2 /tmp/jit.ppm /tmp/jit-out.ppm >/tmp/jit.out 2>/tmp/jit.err
          rc=$?; echo "ptx-only $pass $m: exit $rc, $(echo "$(date +%s.%N) $s" | awk "{ printf \"%.2f\", \$1 - \$2 }") s; the job $(grep -o "^time: [0-9.]* ms" /tmp/jit.out); $(grep -o "^device: .*" /tmp/jit.out); said: $(cat /tmp/jit.err)"
        done; du -sh /tmp/jit-ptx; done' >"$out/jit-ptx.log" 2>&1
      echo "jit-ptx: $(secs $start)"; cat "$out/jit-ptx.log" ;;
    flatpak)
      # Flathub's GIMP, emulated (tests/flatpak-emulated.sh) with the driver
      # alone: the release installed into its folders, the procedure there
      # on the GPU.
      GPU_GIMP_TOOLKIT=0 run sh -c 'set -e; rm -rf /tmp/flat-release; mkdir -p /tmp/flat-release
        tar -xJf "$1" -C /tmp/flat-release
        CC_EXPECT_GPU=1 sh tests/flatpak-emulated.sh /tmp/flat-release/gimp-cuda-convolve-*' \
        sh "$(ls .gpubundle/gimp-cuda-convolve-*-linux-x86_64.tar.xz | head -1)" \
        >"$out/flatpak.log" 2>&1
      echo "flatpak, emulated, driver alone: exit $?, $(secs $start)"; cat "$out/flatpak.log" ;;
  esac
done
