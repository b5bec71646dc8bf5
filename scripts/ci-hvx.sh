#!/usr/bin/env bash
# CI steps of the HVX/HMX layer (src/hvx), called by .ci/run after `make test` on Debian 12 with clang, lld, llvm
# (llvm-objdump), qemu-user (qemu-hexagon), python3, cmake, build-essential, libpcre2-dev, pkg-config, libcmocka-dev.
# Nothing is built twice:
#   1. Hexagon compile check: every source of src/hvx and src/htp, and hvx.h/hmx.h on their own, compile
#      with clang --target=hexagon -mv68 and -mv69 -mhvx -mhvx-length=128b -ffreestanding -std=c11, no warnings.
#      The objects are kept, per arch, for step 2.
#   2. Binary inspection of step 1's objects (hvx-inspect.py --objdir), v68 and v69: no in-loop HVX spill, no float
#      promotion and no integer division helper call (__hexagon_udivsi3, __hexagon_umodsi3, their signed and 64-bit
#      forms; in the function or in one it calls) in any NPU worker or compute function. The rule: every function
#      work_queue_run runs is named <op>_worker[_<variant>] (checked here), every kernel a worker calls per block or
#      row is named *_compute* (and kept out of line, HEX_NOINLINE), and the hmx_* tile operations; so
#      --func '_worker|_compute|^hmx_' selects them all. Divisions they need go through host-computed fastdiv values
#      (hex-fastdiv.h) or counters. A function that still spills has an allowance below, with its reason; the tool
#      fails when a count rises above it and when it falls below it (lower the allowance), so the list only shrinks.
#   3. The HVX tests in two builds, SIMD (VNPU_HVX_SIMD=auto: AVX2 where the machine has it) and
#      portable C, under CI=true: semantics vs scalar references, counting, HMX, the qemu-hexagon
#      comparison of every integer intrinsic, the inspection tool's own test. The SIMD build is make test's tree
#      (BUILD_DIR), whose configuration this is: only targets it lacks are built there, and it is never
#      reconfigured (a tree configured otherwise is an error); without one it is configured as make test does.
#      The portable build, $BUILD_DIR-portable, takes its VNPU_HVX_ARCH and VNPU_HVX_COUNT.
#   4. The two builds are bit-identical: the digests of all emulated outputs printed by the semantics
#      tests must be equal.
#   BUILD_DIR (default build, make test's), JOBS (default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}
cd "$root"
export CI=true

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "--- 1. Hexagon compile check (clang $(clang --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p;q'))"
# The flags of hvx-inspect.py's own compile (-O2 -ffp-contract=off -DVNPU_HTP_ARCH), so that step 2 inspects the code
# it would build, plus the warnings and the language. The build's calibration (lib/vnpu-calib-v69.tsv,
# src/htp/CMakeLists.txt) compiles with the v69 ones: keep the two equal.
n=0
for arch in 68 69; do
    flags=(--target=hexagon "-mv$arch" -mhvx -mhvx-length=128b -ffreestanding -std=c11 -O2 -Wall -Wextra -Werror
        -ffp-contract=off "-DVNPU_HTP_ARCH=$arch" -Isrc/htp -Isrc/hvx -Isrc/vdsp)
    srcs=()
    for src in src/hvx/*.c src/htp/*.c; do
        [ -e "$src" ] || continue
        mkdir -p "$work/v$arch/$(dirname "$src")"
        srcs+=("$src")
    done
    # JOBS compilations at once; xargs exits non-zero when one fails, and clang has said why
    printf '%s\n' "${srcs[@]}" | xargs -P "$jobs" -I{} clang "${flags[@]}" -c {} -o "$work/v$arch/{}.o"
    n=$((n + ${#srcs[@]}))
    printf '#include "hvx.h"\n#include "hmx.h"\n' | clang "${flags[@]}" -x c -c - -o "$work/headers.o"
    n=$((n + 1))
done
echo "hexagon compile check: $n compilations (v68, v69) without warnings"

echo "--- 2. binary inspection of step 1's objects: in-loop vector spills, float promotions and divisions in worker and compute functions"
workers=$(grep -ho 'work_queue_run([^,]*, *[a-z_0-9]*' src/htp/*.c | sed 's/.*, *//' | grep -vx 'work_queue_fn' | sort -u)
if unnamed=$(grep -v '_worker' <<<"$workers"); then
    echo "ci-hvx: functions run by work_queue_run must be named <op>_worker[_<variant>]: $unnamed" >&2
    exit 1
fi
echo "work_queue_run runs $(wc -l <<<"$workers") workers, all named *_worker*"
# In-loop vector spills still allowed, each with its reason (the same count on v68 and v69):
allow=(
    # MUL_MAT's HVX unit (matmul_compute, matmul-ops.c): the zero vectors the inlined float kernels (hvx-mm-float.h)
    # start their sums from are hoisted out of the column loop, and the quantized kernels' indirect call
    # (matmul_weights_dot) clobbers every vector register: one reload each per call of a quantized kernel.
    --allow matmul_compute=3
    # The fold of 32 keys' dot products as a fixed tree (fa_keys*) still keeps a level's vector across the next
    # level's dot-product loops when the head has many vectors: open.
    --allow fa_compute_row=21
    # The YaRN ramps' vector division in the per-thread setup (once per op and thread, not per block): the
    # divisor's hoisted predicates outnumber the 4 predicate registers.
    --allow rope_worker=5
)
for arch in 68 69; do
    python3 scripts/hvx-inspect.py --arch "$arch" --spills --promotions --divisions --strict \
        --func '_worker|_compute|^hmx_' --objdir "$work/v$arch" \
        "${allow[@]}"
done

tests=(test-hvx-int test-hvx-float test-hvx-float-v75 test-hmx test-hvx-count test-hvx-count-off
    test-hvx-qemu test-hvx-inspect)
regex="^($(IFS='|'; echo "${tests[*]}"))\$"

# cache DIR NAME: NAME's value in DIR's CMake cache (empty when unset).
cache() {
    sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"
}

# make test's tree: configured as make test does when absent; otherwise it must have this step's options.
if [ ! -f "$build/CMakeCache.txt" ]; then
    echo "--- 3. configuring $build as make test does"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DVNPU_BUILD_TESTS=ON >"$work/cmake-auto.log"
    grep 'vnpu-hvx: backend' "$work/cmake-auto.log"
fi
for want in CMAKE_BUILD_TYPE=Release VNPU_BUILD_TESTS=ON VNPU_HVX_SIMD=auto; do
    if [ "$(cache "$build" "${want%%=*}")" != "${want#*=}" ]; then
        echo "ci-hvx: $build has ${want%%=*}=$(cache "$build" "${want%%=*}"), this step needs $want (make test's):" \
            "run make test, or set BUILD_DIR to a tree configured so" >&2
        exit 1
    fi
done
hvx_arch=$(cache "$build" VNPU_HVX_ARCH)
count=$(cache "$build" VNPU_HVX_COUNT)
echo "$build: CMAKE_BUILD_TYPE=Release VNPU_BUILD_TESTS=ON VNPU_HVX_SIMD=auto" \
    "(VNPU_HVX_HOST_AVX2=$(cache "$build" VNPU_HVX_HOST_AVX2))," \
    "VNPU_HVX_ARCH=$hvx_arch VNPU_HVX_COUNT=$count"
cmake -S "$root" -B "$build-portable" -DCMAKE_BUILD_TYPE=Release -DVNPU_BUILD_TESTS=ON -DVNPU_HVX_SIMD=portable \
    -DVNPU_HVX_ARCH="$hvx_arch" -DVNPU_HVX_COUNT="$count" >"$work/cmake-portable.log"
grep 'vnpu-hvx: backend' "$work/cmake-portable.log"

for simd in auto portable; do
    dir=$build
    [ "$simd" = portable ] && dir=$build-portable
    echo "--- 3. HVX tests, VNPU_HVX_SIMD=$simd ($dir)"
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
