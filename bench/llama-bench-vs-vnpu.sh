#!/bin/sh
# llama-bench through libggml-vnpu.so against vnpu-bench: the same model, device and tests, in turns, then the ratio
# of their mean t/s per test (issue 10, acceptance 3: the GGML adapter should cost almost nothing).
#
#   bench/llama-bench-vs-vnpu.sh [MODEL]
#
# MODEL defaults to gen_gguf's llama-3.2-1b preset in Q4_0 in the oracle's cache, generated there when missing
# (gen_gguf --preset llama-3.2-1b --type q4_0, a few minutes). The environment chooses the rest:
#   BUILD (build), DEV (HTP0), P (32) and N (8): llama-bench's -p and -n, R (3) repetitions per run,
#   ROUNDS (2): each tool runs ROUNDS times, in turns, so drifting load on a shared machine touches both alike;
#   LLAMA_BENCH_ARGS (--poll 0): llama-bench's own options. --poll 0 because the virtual NPU computes on the host's
#   cores: llama.cpp's CPU threads otherwise spin for work between their graph splits (the token embedding's
#   GET_ROWS) and take cores from the NPU's workers, which on a phone would not happen.
# VNPU_* variables reach both tools alike. Prints both tools' tables (csv) and then one line per test:
#   test  llama-bench t/s  vnpu-bench t/s  ratio (llama-bench / vnpu-bench)
set -eu

BUILD=${BUILD:-build}
DEV=${DEV:-HTP0}
P=${P:-32}
N=${N:-8}
R=${R:-3}
ROUNDS=${ROUNDS:-2}
LLAMA_BENCH_ARGS=${LLAMA_BENCH_ARGS:---poll 0}
here=$(cd "$(dirname "$0")/.." && pwd)
oracle=$here/../shared/oracle

plugin=$BUILD/lib/libggml-vnpu.so
vnpu_bench=$BUILD/tools/vnpu-bench
for f in "$plugin" "$vnpu_bench"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "$0: $f not built (configure with -DVNPU_GGML_SRC=...)" >&2; exit 1; }
done
ubin=$("$oracle/upstream.sh" --bindir 2>/dev/null) || { echo "$0: upstream.sh --bindir failed" >&2; exit 1; }
obin=$("$oracle/setup.sh" 2>/dev/null | tail -1) || { echo "$0: the oracle's setup.sh failed" >&2; exit 1; }

if [ $# -ge 1 ]; then
    model=$1
else
    model=$obin/../cache/gen_gguf/llama-3.2-1b-q4_0.gguf
    if [ ! -f "$model" ]; then
        mkdir -p "$(dirname "$model")"
        echo "# generating $model (gen_gguf --preset llama-3.2-1b --type q4_0)" >&2
        "$obin/gen_gguf" --preset llama-3.2-1b --type q4_0 -o "$model.part-$$" >/dev/null
        mv "$model.part-$$" "$model"
    fi
fi
[ -f "$model" ] || { echo "$0: no model $model" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# model $model, device $DEV, -p $P -n $N -r $R, $ROUNDS rounds; llama-bench $LLAMA_BENCH_ARGS"
echo "# commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
while [ "$i" -le "$ROUNDS" ]; do
    # shellcheck disable=SC2086 # LLAMA_BENCH_ARGS is a list of options
    GGML_BACKEND_PATH=$plugin "$ubin/llama-bench" -m "$model" -dev "$DEV" -ngl 99 -p "$P" -n "$N" -r "$R" \
        $LLAMA_BENCH_ARGS -o csv 2>"$out/llama-bench.err" >"$out/llama-bench.$i.csv" ||
        { cat "$out/llama-bench.err" >&2; exit 1; }
    "$vnpu_bench" -m "$model" -dev "$DEV" -p "$P" -n "$N" -r "$R" -o csv 2>"$out/vnpu-bench.err" \
        >"$out/vnpu-bench.$i.csv" || { cat "$out/vnpu-bench.err" >&2; exit 1; }
    grep '^#' "$out/vnpu-bench.err" | sed "s/^# /# vnpu-bench round $i: /" || true
    i=$((i + 1))
done
cat "$out"/llama-bench.*.csv "$out"/vnpu-bench.*.csv

# llama-bench's csv: n_prompt, n_gen and avg_ts; vnpu-bench's: test (pp32, tg8) and ts_mean. Columns are found by
# their header name, counted from the end of the line, since a quoted model name may hold commas.
awk -F, '
    function unq(s) { gsub(/"/, "", s); return s }
    function get(name) { return unq($(NF - from_end[tool, name])) }
    FNR == 1 { tool = FILENAME ~ /llama-bench/ ? "l" : "v"; for (c = 1; c <= NF; c++) from_end[tool, unq($c)] = NF - c; next }
    tool == "l" { t = get("n_prompt") > 0 ? "pp" get("n_prompt") : "tg" get("n_gen"); ts = get("avg_ts") }
    tool == "v" { t = get("test"); ts = get("ts_mean") }
    { sum[tool, t] += ts; cnt[tool, t]++; tests[t] = 1 }
    END {
        printf "%-6s %16s %16s %8s\n", "test", "llama-bench t/s", "vnpu-bench t/s", "ratio"
        for (t in tests) {
            l = cnt["l", t] ? sum["l", t] / cnt["l", t] : 0; v = cnt["v", t] ? sum["v", t] / cnt["v", t] : 0
            printf "%-6s %16.2f %16.2f %8.3f\n", t, l, v, (v > 0 ? l / v : 0)
        }
    }' "$out"/llama-bench.*.csv "$out"/vnpu-bench.*.csv
