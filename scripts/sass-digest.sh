#!/bin/sh
# A digest of each kernel's machine code (SASS) for one architecture, to
# compare a change that must not alter what runs (a move between files, a
# shared helper): compiles every kernels/*.cu to a cubin with the build's
# flags and prints, sorted, each kernel's name, code size and the sha256
# of its .text section.  Needs no GPU and no cuobjdump:
#
#   scripts/env.sh scripts/sass-digest.sh > before.txt   # then, after the change:
#   scripts/env.sh scripts/sass-digest.sh | diff before.txt -
#
# CUDA_ARCH (default sm_90) picks the architecture; NVCC the compiler.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
arch=${CUDA_ARCH:-sm_90}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
build=${BUILD:-$top/_build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cu in "$top"/kernels/*.cu; do
  "$nvcc" -O3 -std=c++17 -arch="$arch" -cubin -I"$build" -I"$top/engine" -I"$top/gpu" -I"$top/kernels" \
    -o "$tmp/$(basename "$cu" .cu).cubin" "$cu"
done
python3 - "$tmp"/*.cubin <<'EOF'
import hashlib, struct, sys

rows = []
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    # ELF64, little-endian: the section headers and their names.
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    names = sections[shstrndx]
    def name(s):
        start = names[4] + s[0]
        return data[start:data.index(b"\0", start)].decode()
    for s in sections:
        n = name(s)
        if n.startswith(".text."):
            body = data[s[4]:s[4] + s[5]]
            rows.append((n[6:], len(body), hashlib.sha256(body).hexdigest()[:16]))
for kernel, size, digest in sorted(rows):
    print("%s %d %s" % (kernel, size, digest))
EOF
