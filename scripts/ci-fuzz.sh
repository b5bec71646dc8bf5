#!/usr/bin/env bash
# Fuzz the GGUF reader and the model checks on top of it: build fuzz-gguf-read and fuzz-model-validate
# with clang + libFuzzer + ASan/UBSan, run each for FUZZ_SECONDS (default 60) from its seed corpus
# (fuzz/corpus, fuzz/corpus-model; copied: the committed corpus is not changed), print the executions
# reached, and fail on any crash, leak, timeout or sanitizer report (the input that caused it is saved as
# $BUILD_DIR/crash-* / leak-* / timeout-*).
#   BUILD_DIR (default build-fuzz), FUZZ_SECONDS, FUZZ_JOBS (cmake -j, default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-60}

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVNPU_FUZZ=ON -DVNPU_SANITIZE=ON -DVNPU_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target fuzz-gguf-read fuzz-model-validate

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_fuzzer TARGET SEED_DIR: FUZZ_SECONDS of TARGET from a copy of its seeds; fails on any report.
run_fuzzer() {
    target=$1
    rm -rf "$work/corpus" && mkdir "$work/corpus"
    status=0
    "$build/fuzz/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$build/" "$work/corpus" "$2" >"$work/log" 2>&1 || status=$?
    tail -n 25 "$work/log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
    echo "$target: ${execs:-?} executions in ${seconds} s (${rate:-?}/s), exit status $status"
    if [ "$status" -ne 0 ] || [ -z "$execs" ]; then
        echo "$target: FAILED (see the log above; the input is saved under $build/)" >&2
        exit 1
    fi
}

run_fuzzer fuzz-gguf-read "$root/fuzz/corpus"
run_fuzzer fuzz-model-validate "$root/fuzz/corpus-model"
