#!/usr/bin/env bash
# The virtual HTP's CI checks beyond `make test`:
#  1. src/htp compiles as Hexagon code: every NPU source with clang --target=hexagon -mv68 and -mv69
#     (-mhvx -mhvx-length=128b -ffreestanding, -Wall -Wextra -Werror; clang 14 knows Hexagon up to v69).
#  2. vnpu-test-ops, every case: on each NPU library (VNPU_ARCH v73, v75, v79, v81), then in strict DMA mode
#     (VNPU_DMA_STRICT=1) with 1, 2 and 6 NPU workers, and with VNPU_MM_PATH=hmx in strict DMA mode.
#   BUILD_DIR (default build-htp-ci), JOBS (cmake -j, default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-htp-ci}

echo "== Hexagon compile check of src/htp"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for arch in 68 69; do
    for src in "$root"/src/htp/*.c; do
        clang --target=hexagon -mv$arch -mhvx -mhvx-length=128b -ffreestanding -std=c11 -O2 \
            -Wall -Wextra -Werror -DVNPU_HTP_ARCH=$arch \
            -I"$root/src/htp" -I"$root/src/hvx" -I"$root/src/vdsp" \
            -c "$src" -o "$work/$(basename "$src" .c)-v$arch.o"
    done
    echo "src/htp: $(ls "$root"/src/htp/*.c | wc -l) sources compile for hexagon v$arch"
done

echo "== vnpu-test-ops"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"${JOBS:-2}" --target vnpu-test-ops
ops=$build/tools/vnpu-test-ops
status=0
run() { # run <description> <env...>: the whole case table
    local what=$1
    shift
    if env "$@" "$ops" -b HTP0 >"$work/out" 2>&1; then
        echo "$what: $(grep -c '): OK$' "$work/out") cases OK"
    else
        grep -v ': OK$' "$work/out" | tail -n 20
        echo "$what: FAILED" >&2
        status=1
    fi
}
for arch in v73 v75 v79 v81; do
    run "VNPU_ARCH=$arch" VNPU_ARCH=$arch
done
for workers in 1 2 6; do
    run "strict DMA, $workers workers" VNPU_DMA_STRICT=1 VNPU_NHVX=$workers
done
run "VNPU_MM_PATH=hmx (MUL_MAT and MUL_MAT_ID on HMX wherever they can run), strict DMA" VNPU_MM_PATH=hmx VNPU_DMA_STRICT=1
exit $status
