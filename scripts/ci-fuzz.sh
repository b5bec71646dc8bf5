#!/usr/bin/env bash
# Fuzz the GGUF reader, the model checks on top of it and the tokenizers: build fuzz-gguf-read, fuzz-model-validate
# and fuzz-tokenize with clang + libFuzzer + ASan/UBSan, run each for FUZZ_SECONDS (default 60, the three at once)
# from its seed corpus (fuzz/corpus, fuzz/corpus-model, fuzz/corpus-tokenize; copied: the committed corpus is not
# changed), print the executions
# reached, and fail on any crash, leak, timeout or sanitizer report (the input that caused it is saved as
# $BUILD_DIR/crash-* / leak-* / timeout-*).
#   BUILD_DIR (default build-fuzz), FUZZ_SECONDS, FUZZ_JOBS (cmake -j, default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-60}

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVNPU_FUZZ=ON -DVNPU_SANITIZE=ON -DVNPU_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target fuzz-gguf-read fuzz-model-validate fuzz-tokenize

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_fuzzer TARGET SEED_DIR: FUZZ_SECONDS of TARGET from a copy of its seeds, its log in $work/TARGET.log and its exit
# status in $work/TARGET.rc. The fuzzers run at once (three on CI's two cores: each gets fewer executions).
run_fuzzer() {
    local target=$1 status=0
    mkdir "$work/corpus-$target"
    "$build/fuzz/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$build/" "$work/corpus-$target" "$2" >"$work/$target.log" 2>&1 || status=$?
    echo "$status" >"$work/$target.rc"
}

run_fuzzer fuzz-gguf-read "$root/fuzz/corpus" &
run_fuzzer fuzz-model-validate "$root/fuzz/corpus-model" &
run_fuzzer fuzz-tokenize "$root/fuzz/corpus-tokenize" &
wait

failed=0
for target in fuzz-gguf-read fuzz-model-validate fuzz-tokenize; do
    log=$work/$target.log
    status=$(cat "$work/$target.rc")
    tail -n 25 "$log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "$target: ${execs:-?} executions in ${seconds} s (${rate:-?}/s), exit status $status"
    if [ "$status" -ne 0 ] || [ -z "$execs" ]; then
        echo "$target: FAILED (see the log above; the input is saved under $build/)" >&2
        failed=1
    fi
done
exit $failed
