#!/usr/bin/env bash
# The virtual NPUs' CI sweep beyond `make test`: vnpu-test-ops, every case of its table on HTP0, once per setting:
#
#   VNPU_ARCH=v73 VNPU_DMA_STRICT=1 VNPU_NHVX=1   each NPU library (v73, v75, v79, v81) once;
#   VNPU_ARCH=v75 VNPU_DMA_STRICT=1 VNPU_NHVX=2   strict DMA (poison at push, data at pop: every normal-mode
#   VNPU_ARCH=v79 VNPU_DMA_STRICT=1 VNPU_NHVX=6   check and the pipeline's push/pop order) with 1, 2 and 6 NPU
#   VNPU_ARCH=v81                                 workers; normal DMA, the default workers (min(cores, contexts));
#   VNPU_MM_PATH=hmx VNPU_DMA_STRICT=1            MUL_MAT and MUL_MAT_ID on HMX wherever they can run (v79);
#
# and every MUL_MAT case on the XDNA devices (docs/xdna.md; the other ops are theirs to skip): NPU1, NPU2 in strict
# mode (VNPU_XDNA_STRICT=1), NPU2Col4 with the BFP16-emulation kernel.
#
# Strict mode is normal mode plus its checks, so an arch run in strict mode checks what it would in normal mode;
# v81 keeps the normal mode of a real run covered. The settings run two at a time (JOBS), each on one process of
# the one build `make test` made (BUILD_DIR, default build: nothing is built twice). The Hexagon compile check of
# src/htp is scripts/ci-hvx.sh's step 1.
#   BUILD_DIR (default build), JOBS (settings at once, default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs" --target vnpu-test-ops >/dev/null
ops=$build/tools/vnpu-test-ops

settings=(
    "VNPU_ARCH=v73 VNPU_DMA_STRICT=1 VNPU_NHVX=1"
    "VNPU_ARCH=v75 VNPU_DMA_STRICT=1 VNPU_NHVX=2"
    "VNPU_ARCH=v79 VNPU_DMA_STRICT=1 VNPU_NHVX=6"
    "VNPU_ARCH=v81"
    "VNPU_MM_PATH=hmx VNPU_DMA_STRICT=1"
    "XDNA=NPU1"
    "XDNA=NPU2 VNPU_XDNA_STRICT=1"
    "XDNA=NPU2Col4 VNPU_XDNA_BFP16=1"
)

# sweep I: setting I over the whole table; its output in $work/out-I, its time and exit status in $work/rc-I.
# A setting XDNA=DEV runs the MUL_MAT cases on XDNA device DEV instead of the table on HTP0.
sweep() {
    local start=$SECONDS rc=0 setting=${settings[$1]} args=(-b HTP0)
    if [[ $setting == XDNA=* ]]; then
        args=(-b "${setting%% *}" -o 'MUL_MAT(')
        args[1]=${args[1]#XDNA=}
        setting=${setting#"${setting%% *}"}
    fi
    # shellcheck disable=SC2086 # the setting is a list of VAR=value words
    env $setting "$ops" "${args[@]}" >"$work/out-$1" 2>&1 || rc=$?
    echo "$rc $((SECONDS - start))" >"$work/rc-$1"
}

for i in "${!settings[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    sweep "$i" &
done
wait

status=0
for i in "${!settings[@]}"; do
    read -r rc secs <"$work/rc-$i"
    ok=$(grep -cE '\): OK( |$)' "$work/out-$i" || true)
    if [ "$rc" -eq 0 ]; then
        echo "${settings[$i]}: $ok cases OK ($secs s)"
    else
        grep -vE '\): OK( |$)' "$work/out-$i" | tail -n 20
        echo "${settings[$i]}: FAILED, exit status $rc ($ok cases OK, $secs s)" >&2
        status=1
    fi
done
exit $status
