#!/usr/bin/env bash
# The XDNA cost model (src/xdna/xdna-perf.h) against published figures (issue 13 acceptance 4; sources in
# docs/xdna-cost-model.md, "Validation", and ../shared/design/targets-and-anchors.md section 3):
#   XDNA2 IRON gemm 2048^3 bf16, 8 columns: 696 GFLOP/s (amd/IRON#55, a first try)
#   XDNA1 whole_array GEMM bf16: ~50% of the bf16 peak (mlir-aie#2735; taken at 2048^3 on NPU1's 4 columns)
#   XDNA2 single core 512^3 bf16: 83 GFLOP/s (mlir-aie#2704): our design uses a column's 4 cores, so NPU2Col1
#   FastFlowLM Llama-3.2-1B on Krackan (NPU2): decode 64.5 t/s, prefill 1686 t/s at 1k context
# The GEMMs are op-mode runs (F32 weights: bf16 on the array); the model is the oracle's synthetic llama-3.2-1b preset
# (real layer shapes, a 32000-token vocabulary) with -p 128 -n 4, corrected with the arithmetic printed:
#   F      = design runs x run_us (52 us), the fixed part, which does not grow with tokens or rows;
#   vocab  = the output layer's MUL_MAT grows with its rows: (out - F_out) x 128256 / 32000 + F_out;
#   4-bit  = FastFlowLM streams 4-bit weights (taken as 4.5 bits with the scales), our design bf16 (dequantized at
#            load): in decode every MUL_MAT run is DDR- or stream-bound on its weights, both bounds scale with the
#            bytes, so its non-fixed part x rho = 4.5 / 16;
#   1k     = prefill: every MUL_MAT re-streams its weights per 32-row m-tile and the CPU's bytes grow with the tokens,
#            so the non-fixed time grows x 1024 / 128; the output layer computes the last token only (it stays).
# Deterministic: the figures do not depend on this host. MODEL (default: the oracle's cache), BUILD_DIR (default build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
bench=$build/tools/vnpu-bench
model=${MODEL:-$HOME/.cache/vnpu-oracle/cache/gen_gguf/llama-3.2-1b-q4_0-23621289054d2a60.gguf}
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

"$bench" -m "$model" -dev NPU2 -p 128 -n 4 -r 1 --no-warmup --breakdown -o csv 2>"$work/err" >"$work/model.csv" ||
    { cat "$work/err" >&2; exit 1; }
cat "$work/model.csv" >&2
awk -F, '
    /^arch,test,op/ { ops = 1; next }
    ops && NF > 8 {
        t = $2; us[t] += $6; runs[t] += $5
        if ($3 == "\"MUL_MAT output\"") { out[t] += $6; oruns[t] += $5 }
        if ($3 ~ /^"MUL_MAT/) { mm[t] += $6; mmruns[t] += $5 }
    }
    END {
        run_us = 52; rho = 4.5 / 16; vocab = 128256 / 32000
        # decode: per token, the vocabulary corrected, then the 4-bit weights
        n = 4; t = "tg4"; F = runs[t] * run_us; Fo = oruns[t] * run_us
        outc = (out[t] - Fo) * vocab + Fo
        tok = (us[t] - out[t] + outc) / n
        printf "decode: modelled %.0f us / %d tokens, output layer %.0f us -> %.0f us (x %.3f beyond its %d runs x 52 us)\n", us[t], n, out[t], outc, vocab, oruns[t]
        printf "%-34s published %8.1f t/s  modelled %8.1f t/s  ratio %.2f  (bf16 weights, DDR bound)\n", "FLM decode 1k (bf16 weights)", 64.5, 1e6 / tok, 1e6 / tok / 64.5
        mm4 = (mm[t] - out[t] - (mmruns[t] - oruns[t]) * run_us) * rho + (mmruns[t] - oruns[t]) * run_us
        out4 = (outc - Fo) * rho + Fo
        tok4 = (us[t] - mm[t] + mm4 + out4) / n
        printf "  4-bit: MUL_MAT %.0f us -> %.0f us, output %.0f us -> %.0f us (non-fixed part x %.4f)\n", mm[t] - out[t], mm4, outc, out4, rho
        printf "%-34s published %8.1f t/s  modelled %8.1f t/s  ratio %.2f  (4-bit weights: DDR bound x rho)\n", "FLM decode 1k (4-bit weights)", 64.5, 1e6 / tok4, 1e6 / tok4 / 64.5
        # prefill: 128 tokens to 1024
        n = 128; t = "pp128"; F = (runs[t] - oruns[t]) * run_us; Fo = oruns[t] * run_us
        outc = (out[t] - Fo) * vocab + Fo
        rest = us[t] - out[t]
        t1k = (rest - F) * 1024 / 128 + F + outc
        printf "prefill: modelled pp128 %.0f us (fixed %.0f us, output %.0f us -> %.0f us); 1k: (%.0f - %.0f) x 8 + %.0f + %.0f = %.0f us\n", us[t], F, out[t], outc, rest, F, F, outc, t1k
        printf "%-34s published %8.1f t/s  modelled %8.1f t/s  ratio %.2f  (bf16 weights, DDR bound: re-streamed per m-tile)\n", "FLM prefill 1k", 1686, 1024e6 / t1k, 1024e6 / t1k / 1686
    }' "$work/model.csv"
