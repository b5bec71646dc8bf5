#!/usr/bin/env bash
# The cost model against published llama.cpp Hexagon figures (issue 11; sources in docs/targets.md, §"Validation"):
#   v79 (8 Elite), Llama-3.2-1B Q4_0, HVX only: llama-bench pp128 169.4 t/s, tg64 51.5 t/s (docs/backend/snapdragon)
#   v81 (8 Elite Gen 5), the same model, HMX: pp256 ~890 t/s, tg ~64.6 t/s (llama.cpp#22334)
#   v79, one MUL_MAT of Q8_0 4096 x 4096 by F32 4096 x 64 on the HVX path: ~4.9 ms (llama.cpp#18139)
# on gen_gguf's llama-3.2-1b preset (real layer shapes, a 32000-token vocabulary) with the real model's types: Q4_0
# layers, the tied token_embd in Q6_K (llama.cpp's quantize gives a tied output Q6_K). llama.cpp's Hexagon MUL_MAT
# takes Q4_0, Q4_1, Q8_0, IQ4_NL and MXFP4 weights only (ggml-hexagon.cpp's supports_op, in the oracle's source), so
# the published runs had the output layer on the CPU: VNPU_OPFILTER keeps vnpu's NPU off it alike, and the model
# prices it on the SoC's CPU. The output layer is corrected to the real model's 128256 tokens:
# t/s = tokens / (modelled + output MUL_MAT x (128256 / 32000 - 1)), its time growing with its rows (its bytes do).
# One vnpu-bench run per figure; prints each figure, the modelled value, the ratio and the bound that dominated.
#   MODEL (default: the preset in the oracle's cache, made by gen_gguf when missing), BUILD_DIR (default build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
bench=$build/tools/vnpu-bench
obin=$("$root/../shared/oracle/setup.sh" --bindir 2>/dev/null || echo "$HOME/.cache/vnpu-oracle/bin")
model=${MODEL:-$obin/../cache/gen_gguf/llama-3.2-1b-q4_0-q6_k-embd.gguf}
if [ ! -f "$model" ]; then
    "$obin/gen_gguf" --preset llama-3.2-1b --type q4_0 --embd-type q6_K -o "$model"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# (The first table's model column holds commas: its fields are counted from the end.)
# model ARCH P N PATH: the csv of vnpu-bench --arch ARCH --breakdown (VNPU_MM_PATH=PATH)
model_run() {
    VNPU_OPFILTER='MUL_MAT\(q6_K\)' VNPU_MM_PATH=$4 "$bench" -m "$model" -dev HTP0 -p "$2" -n "$3" -r 1 --arch "$1" --breakdown -o csv 2>"$work/err" ||
        { cat "$work/err" >&2; exit 1; }
}
# figure NAME PUBLISHED CSV TEST TOKENS: the corrected modelled t/s of TEST against PUBLISHED
figure() {
    awk -F, -v name="$1" -v pub="$2" -v test="$4" -v n="$5" '
        /^arch,test,op/ { ops = 1; next }
        /^arch,test,function/ { ops = 0; next }
        ops && $2 == test { us += $5; if ($3 ~ /^"(CPU )?MUL_MAT output"$/) out += $5; if ($5 > top) { top = $5; b = $7; o = $3 } }
        END {
            corr = out * (128256 / 32000 - 1)
            ts = n / ((total + corr) * 1e-6)
            printf "%-28s published %8.1f  modelled %8.1f t/s  ratio %.2f  (output layer %.0f us -> +%.0f us; largest op %s, %s bound)\n",
                name, pub, ts, ts / pub, out, corr, o, b
        }' total="$(awk -F, -v test="$4" 'NR > 1 && $(NF - 6) == test { print 1e6 * $(NF - 5) / $NF; exit }' "$3")" "$3"
}
model_run v79 128 64 hvx >"$work/v79.csv"
model_run v81 256 64 auto >"$work/v81.csv"
cat "$work/v79.csv" "$work/v81.csv" >&2
figure "v79 pp128 (HVX)" 169.4 "$work/v79.csv" pp128 128
figure "v79 tg64 (HVX)" 51.5 "$work/v79.csv" tg64 64
figure "v81 pp256 (HMX)" 890 "$work/v81.csv" pp256 256
figure "v81 tg64" 64.6 "$work/v81.csv" tg64 64
us=$("$bench" mul_mat --type q8_0 --k 4096 --m 4096 --n 64 -dev HTP0 --arch v79 --reps 1 --warmup 0 --per-rep 1 \
    --no-check -o csv 2>/dev/null | awk -F, 'NR == 2 { print $NF }')
awk -v us="$us" 'BEGIN { printf "%-28s published %8.1f  modelled %8.1f us  ratio %.2f\n", "v79 MUL_MAT Q8_0 4096x4096x64", 4900, us, us / 4900 }'

# Where the table's cpu_gbytes_per_s comes from (src/perf/perf-target.c, docs/targets.md "CPU"): llama.cpp#22334's
# Llama-3.1-8B-Instruct Q4_0 on v81, eval 2327.55 ms for 31 tokens (75.08 ms a token), its Q6_K output layer (4096 x
# 128256: 430,940,160 bytes, with a 4096-float column and 128256 floats of logits 431,469,568) on the CPU. The NPU's
# part is modelled on two layers of the 8B's shapes (n_embd 4096, 32 / 8 heads, n_ff 14336) x 16, plus a request a
# token; the CPU's rate is what is left of the published time for the output layer's bytes.
model8=${MODEL_8B:-$obin/../cache/gen_gguf/llama-3.1-8b-2-layers-q4_0.gguf}
if [ ! -f "$model8" ]; then
    "$obin/gen_gguf" --preset llama-3.2-1b --n-embd 4096 --n-layer 2 --n-head 32 --n-head-kv 8 --n-ff 14336 \
        --type q4_0 -o "$model8"
fi
"$bench" -m "$model8" -dev HTP0 -p 0 -n 4 -r 1 --arch v81 --breakdown -o csv >"$work/v81-8b.csv" 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
awk -F, '
    /^arch,test,op/ { ops = 1; next }
    /^arch,test,function/ { ops = 0; next }
    ops && $2 == "tg4" && $3 !~ /output"$/ && $3 !~ /^"(CPU |\(requests\))/ { layers += $5 }
    END {
        npu = layers / 4 * 32 / 2 + 35
        cpu = 75082 - npu
        printf "%-28s published %8.1f  modelled NPU %.1f ms a token: the CPU output layer %.1f ms, %.1f GB/s (cpu_gbytes_per_s)\n",
            "v81 Llama-3.1-8B tg (ms)", 75.08, npu / 1e3, cpu / 1e3, 431469568 / cpu / 1e3
    }' "$work/v81-8b.csv"
