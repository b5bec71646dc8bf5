#!/usr/bin/env bash
# The XDNA cost model (src/xdna/xdna-perf.h) against published figures (issue 13 acceptance 4; sources in
# docs/xdna-cost-model.md, "Validation", and ../shared/design/targets-and-anchors.md section 3):
#   XDNA2 IRON gemm 2048^3 bf16, 8 columns: 696 GFLOP/s (amd/IRON#55, a first try)
#   XDNA1 whole_array GEMM bf16: ~50% of the bf16 peak (mlir-aie#2735; taken at 2048^3 on NPU1's 4 columns)
#   XDNA2 single core 512^3 bf16: 83 GFLOP/s (mlir-aie#2704): our design uses a column's 4 cores, so NPU2Col1
#   FastFlowLM Llama-3.2-1B on Krackan (NPU2): decode 64.5 t/s, prefill 1686 t/s at 1k context
# The GEMMs are op-mode runs (F32 weights: bf16 on the array). The model is the oracle's synthetic llama-3.2-1b preset
# in Q4_0 (real layer shapes, a 32000-token vocabulary; its Q4_0 weights stream as 4.5-bit blocks, as FastFlowLM's
# 4-bit weights do), run as pp1024 (prefill at 1k) and tg4, corrected with the arithmetic printed:
#   vocab = the output layer's MUL_MAT grows with its rows: (out - F_out) x 128256 / 32000 + F_out, F_out its runs x
#           run_us (52 us), the fixed part, which does not grow;
#   1k    = decode at 1k context: tg4 runs at a context of a few tokens; at 1024 every layer's attention (on the CPU)
#           reads 1024 more K and V rows: 16 layers x 2 x 1024 x 512 x 2 bytes (F16) at the CPU's 44 GB/s.
# Deterministic: the figures do not depend on this host (about 4 minutes here, most of it the prefill).
# MODEL (default: the preset in the oracle's cache, made by gen_gguf when missing), BUILD_DIR (default build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
bench=$build/tools/vnpu-bench
obin=$("$root/../shared/oracle/setup.sh" --bindir)
model=${MODEL:-$obin/../cache/gen_gguf/llama-3.2-1b-q4_0.gguf}
if [ ! -f "$model" ]; then
    mkdir -p "$(dirname "$model")"
    "$obin/gen_gguf" --preset llama-3.2-1b --type q4_0 -o "$model" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# gemm NAME DEV K PUBLISHED_GFLOPS [PEAK_GFLOPS]: one op-mode run; with PEAK the published figure is a share of peak
gemm() {
    "$bench" mul_mat --type f32 --k "$3" --m "$3" --n "$3" -dev "$2" --reps 1 --warmup 0 --per-rep 1 --no-check \
        -o csv 2>"$work/err" >"$work/op.csv" || { cat "$work/err" >&2; exit 1; }
    awk -F, -v name="$1" -v pub="$4" -v peak="${5:-0}" 'NR == 2 {
        g = $NF
        if (peak > 0) printf "%-34s published %5.1f %% of peak  modelled %5.1f %% (%.0f GFLOP/s of %.0f)  ratio %.2f\n", name, pub, 100 * g / peak, g, peak, g / peak / (pub / 100)
        else printf "%-34s published %8.1f GFLOP/s  modelled %8.1f GFLOP/s (%.0f us)  ratio %.2f\n", name, pub, g, $(NF - 1), g / pub
    }' "$work/op.csv"
}
gemm "XDNA2 IRON gemm 2048^3 8 cols" NPU2 2048 696
gemm "XDNA1 whole_array 2048^3 (bf16)" NPU1 2048 50 $((16 * 128 * 2)) # 16 tiles x 128 MACs x 2 x 1.0 GHz
gemm "XDNA2 single core 512^3 (NPU2Col1)" NPU2Col1 512 83

"$bench" -m "$model" -dev NPU2 -p 1024 -n 4 -r 1 --no-warmup --breakdown -o csv 2>"$work/err" >"$work/model.csv" ||
    { cat "$work/err" >&2; exit 1; }
cat "$work/model.csv" >&2
awk -F, '
    /^arch,test,op/ { ops = 1; next }
    ops && NF > 8 {
        t = $2; us[t] += $6; runs[t] += $5
        if ($3 == "\"MUL_MAT output\"") { out[t] += $6; oruns[t] += $5 }
    }
    END {
        run_us = 52; vocab = 128256 / 32000
        # decode: per token, the vocabulary corrected, then the 1k context
        n = 4; t = "tg4"; Fo = oruns[t] * run_us
        outc = (out[t] - Fo) * vocab + Fo
        kv = 16 * 2 * 1024 * 512 * 2 / 44e3
        tok = (us[t] - out[t] + outc) / n + kv
        printf "decode: modelled %.0f us / %d tokens, output layer %.0f us -> %.0f us (x %.3f beyond its %d runs x 52 us), + %.0f us a token of K and V at 1k\n", us[t], n, out[t], outc, vocab, oruns[t], kv
        printf "%-34s published %8.1f t/s  modelled %8.1f t/s  ratio %.2f\n", "FLM decode 1k", 64.5, 1e6 / tok, 1e6 / tok / 64.5
        # prefill: 1024 tokens, the output layer computes the last one
        t = "pp1024"; Fo = oruns[t] * run_us
        outc = (out[t] - Fo) * vocab + Fo
        t1k = us[t] - out[t] + outc
        printf "prefill: modelled pp1024 %.0f us, output layer %.0f us -> %.0f us\n", us[t], out[t], outc
        printf "%-34s published %8.1f t/s  modelled %8.1f t/s  ratio %.2f\n", "FLM prefill 1k", 1686, 1024e6 / t1k, 1024e6 / t1k / 1686
    }' "$work/model.csv"
