#!/usr/bin/env bash
# CI steps of the HVX/HMX layer (src/hvx), called by .ci/run on Debian 12 with clang, lld, llvm
# (llvm-objdump), qemu-user (qemu-hexagon), python3, cmake, build-essential, pkg-config, libcmocka-dev:
#   1. Hexagon compile check: every source of src/hvx and src/htp, and hvx.h/hmx.h on their own, compile
#      with clang --target=hexagon -mv68 and -mv69 -mhvx -mhvx-length=128b -ffreestanding, no warnings.
#   2. Binary inspection: no in-loop HVX spill and no float promotion in any compute function (names
#      with "compute_", as <op>_compute_<name> in src/htp, and the hmx_* tile operations), v68 and v69.
#   3. The HVX tests in two builds, SIMD (VNPU_HVX_SIMD=auto: AVX2 where the machine has it) and
#      portable C, under CI=true: semantics vs scalar references, counting, HMX, the qemu-hexagon
#      comparison of every integer intrinsic, the inspection tool's own test.
#   4. The two builds are bit-identical: the digests of all emulated outputs printed by the semantics
#      tests must be equal.
#   BUILD_DIR (default build-ci-hvx; the portable build goes to $BUILD_DIR-portable), JOBS (default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-ci-hvx}
jobs=${JOBS:-2}
cd "$root"
export CI=true

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "--- 1. Hexagon compile check (clang $(clang --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p;q'))"
n=0
for arch in 68 69; do
    flags=(--target=hexagon "-mv$arch" -mhvx -mhvx-length=128b -ffreestanding -O2 -Wall -Wextra -Werror
        -ffp-contract=off "-DVNPU_HTP_ARCH=$arch" -Isrc/htp -Isrc/hvx -Isrc/vdsp)
    for src in src/hvx/*.c src/htp/*.c; do
        [ -e "$src" ] || continue
        clang "${flags[@]}" -c "$src" -o "$work/check.o"
        n=$((n + 1))
    done
    printf '#include "hvx.h"\n#include "hmx.h"\n' | clang "${flags[@]}" -x c -c - -o "$work/headers.o"
    n=$((n + 1))
done
echo "hexagon compile check: $n compilations (v68, v69) without warnings"

echo "--- 2. binary inspection: in-loop vector spills and float promotions in compute functions"
for arch in 68 69; do
    python3 scripts/hvx-inspect.py --arch "$arch" --spills --promotions --strict --func '(^|_)compute_|^hmx_'
done

tests=(test-hvx-int test-hvx-float test-hvx-float-v75 test-hmx test-hvx-count test-hvx-count-off
    test-hvx-qemu test-hvx-inspect)
regex="^($(IFS='|'; echo "${tests[*]}"))\$"
for simd in auto portable; do
    dir=$build
    [ "$simd" = portable ] && dir=$build-portable
    echo "--- 3. HVX tests, VNPU_HVX_SIMD=$simd ($dir)"
    cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DVNPU_HVX_SIMD="$simd" >"$work/cmake-$simd.log"
    grep 'vnpu-hvx: backend' "$work/cmake-$simd.log"
    if ! cmake --build "$dir" -j"$jobs" --target "${tests[@]}" hvx-qemu-probe >"$work/build-$simd.log" 2>&1; then
        tail -n 40 "$work/build-$simd.log" >&2
        exit 1
    fi
    (cd "$dir" && ctest -R "$regex" --output-on-failure)
    "$dir/tests/hvx/test-hvx-qemu" 2>&1 | grep '^qemu-hexagon: '
    for t in test-hvx-int test-hvx-float test-hvx-float-v75; do
        "$dir/tests/hvx/$t" 2>/dev/null | grep ' digest: ' | sed "s/^/$t /"
    done >"$work/digests-$simd"
done

echo "--- 4. SIMD and portable builds bit-identical"
cat "$work/digests-auto"
if [ "$(wc -l <"$work/digests-auto")" -ne 3 ] || ! cmp -s "$work/digests-auto" "$work/digests-portable"; then
    echo "ci-hvx: the SIMD and portable emulations differ:" >&2
    diff "$work/digests-auto" "$work/digests-portable" >&2 || true
    exit 1
fi
echo "ci-hvx: passed"
