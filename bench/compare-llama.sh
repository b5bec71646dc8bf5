#!/usr/bin/env bash
# The virtual NPU against llama.cpp's CPU backend on the same host (issue 12, acceptance 1): one script run sets up
# what it needs, measures the host's read bandwidth, runs both sides in turns and prints the issue's table.
#
#   bench/compare-llama.sh
#
# Steps (each prints its time on stderr):
#   1. the oracle (../shared/oracle/setup.sh: llama.cpp's libraries, llama_bench and gen_gguf, built once);
#   2. vnpu's build in BUILD when vnpu-bench or vnpu-gguf is missing (Release, no tests);
#   3. the models, generated into the oracle's cache when missing: gen_gguf --preset llama-3.2-1b --type T for
#      T = q4_0, q8_0, q4_K (~0.6 to 1.1 GB each, ~30 s each); stories260K from ../shared/models (not generated);
#   4. the host's read bandwidth: a small C program (below, built into a temp dir) reads a buffer of BW_MB MiB
#      (default 1024, 32 times this host's 32 MiB L3) split over T threads, best of 5 passes, in GB/s (1e9 B/s);
#   5. per model, ROUNDS rounds, each in turn: the oracle's llama_bench (llama.cpp's CPU backend, its best CPU
#      variant for this host), vnpu-bench -dev HTP0 (the default path: HMX for batches from 128 columns, HVX for
#      decode) and VNPU_MM_PATH=hvx vnpu-bench -dev HTP0 for pp only (a decode's matmul has one column and takes
#      HVX on either path, so its tg would measure the default run again).
# Then one table (markdown, stdout): per model and test, both sides' mean t/s over the rounds and their ratio
# (vnpu / llama.cpp, the issue's ratio), and for tg the bandwidth bound and each side's fraction of it.
#
# The bound: t/s <= bandwidth / bytes read per token, where the bytes are the model's weights a decode token reads
# once each: every tensor of the GGUF file but the token embedding (all matrices and the norms), plus the token
# embedding whole when it is also the output layer (tied, as gen_gguf's llama-3.2-1b preset makes it), else one row
# of it (GET_ROWS of the token). The KV cache is not counted (tg128 on the 1B models reads 2 MiB on average, 0.4 %
# of the weights), nor activations. For stories260K (1.2 MB of weights, inside the L3) the DRAM bound says little:
# per-op and per-request costs dominate it.
#
# Environment: BUILD (build), T (2: llama_bench -t, VNPU_NHVX for HTP0 unless set), P (512), N (128), R (3:
# repetitions per run), ROUNDS (1), MODELS ("q4_0 q8_0 q4_K stories260K"), BW_MB (1024), MODELS_DIR
# (../shared/models). Quick run: P=128 N=32 R=2 MODELS=q4_0. VNPU_* variables reach vnpu-bench.
# Not run by CI: it takes ~15 to 25 minutes on a 2-core host with the defaults. Run it on an idle machine: both
# tools report on stderr how many CPUs other processes kept busy ("# cpus: ..." before a run; vnpu-bench also
# "# other processes used ..." during it), echoed below.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
me=$(basename "$0")
BUILD=${BUILD:-$root/build}
T=${T:-2}
P=${P:-512}
N=${N:-128}
R=${R:-3}
ROUNDS=${ROUNDS:-1}
MODELS=${MODELS:-q4_0 q8_0 q4_K stories260K}
BW_MB=${BW_MB:-1024}
MODELS_DIR=${MODELS_DIR:-$(cd "$root/.." && pwd)/shared/models}
export VNPU_NHVX=${VNPU_NHVX:-$T}

die() {
    echo "$me: $*" >&2
    exit 1
}
for v in T P N R ROUNDS BW_MB; do
    case ${!v} in
        '' | *[!0-9]*) die "$v='${!v}': expected a non-negative integer" ;;
    esac
done
if [ "$T" -lt 1 ] || [ "$R" -lt 1 ] || [ "$ROUNDS" -lt 1 ] || [ "$BW_MB" -lt 1 ]; then
    die "T, R, ROUNDS and BW_MB must be at least 1"
fi
[ "$P" -ge 1 ] || [ "$N" -ge 1 ] || die "P and N are both 0: nothing to run"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step_name=
step_t0=
# step NAME: ends the step running (printing its time) and starts NAME; step "" only ends it.
step() {
    local now
    now=$(date +%s.%N)
    if [ -n "$step_name" ]; then
        awk -v n="$step_name" -v a="$step_t0" -v b="$now" 'BEGIN { printf "# %s: %.1f s\n", n, b - a }' >&2
    fi
    step_name=$1
    step_t0=$now
    if [ -n "$step_name" ]; then
        echo "# $step_name ..." >&2
    fi
}

echo "# commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cpus," \
    "load $(cut -d' ' -f1-3 /proc/loadavg); -t $T -p $P -n $N -r $R, $ROUNDS rounds" >&2
step "oracle (setup.sh)"
oracle=$(cd "$root/.." && pwd)/shared/oracle
[ -x "$oracle/setup.sh" ] || die "no oracle at $oracle (expected ../shared/oracle next to the checkout)"
obin=$("$oracle/setup.sh" 2>"$work/setup.err" | tail -n 1) || {
    cat "$work/setup.err" >&2
    die "the oracle's setup.sh failed"
}
for t in llama_bench gen_gguf; do
    [ -x "$obin/$t" ] || die "the oracle's setup.sh did not build $obin/$t"
done

step "vnpu build ($BUILD)"
bench=$BUILD/tools/vnpu-bench
gguf=$BUILD/tools/vnpu-gguf
if [ ! -x "$bench" ] || [ ! -x "$gguf" ]; then
    { cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release && cmake --build "$BUILD" -j "$(nproc)"; } \
        >"$work/build.log" 2>&1 || {
        tail -n 30 "$work/build.log" >&2
        die "building vnpu into $BUILD failed (log above)"
    }
fi

step "models"
cache=$obin/../cache/gen_gguf
# model_file NAME: the GGUF file of NAME (a gen_gguf type of the 1B preset, or stories260K), made when missing.
model_file() {
    case $1 in
        stories260K)
            [ -f "$MODELS_DIR/stories260K.gguf" ] ||
                die "no $MODELS_DIR/stories260K.gguf (see ../shared/models/README.md; MODELS_DIR overrides)"
            echo "$MODELS_DIR/stories260K.gguf"
            ;;
        q4_0 | q8_0 | q4_K)
            local f=$cache/llama-3.2-1b-$1.gguf
            if [ ! -f "$f" ]; then
                mkdir -p "$cache"
                echo "# generating $f (gen_gguf --preset llama-3.2-1b --type $1)" >&2
                "$obin/gen_gguf" --preset llama-3.2-1b --type "$1" -o "$f.part-$$" >"$work/gen.log" 2>&1 || {
                    rm -f "$f.part-$$"
                    cat "$work/gen.log" >&2
                    die "gen_gguf --preset llama-3.2-1b --type $1 failed"
                }
                mv "$f.part-$$" "$f"
            fi
            echo "$f"
            ;;
        *) die "MODELS: unknown model '$1' (q4_0, q8_0, q4_K: gen_gguf's llama-3.2-1b preset; stories260K)" ;;
    esac
}
# token_bytes FILE: the weight bytes a decode token reads (see the header), from vnpu-gguf's tensor list.
token_bytes() {
    "$gguf" "$1" 2>/dev/null | awk '
        / bytes +@ / {
            for (i = 1; i < NF; i++) if ($(i + 1) == "bytes") size = $i
            if ($2 == "token_embd.weight") {
                match($0, /\[[^]]*\]/); split(substr($0, RSTART + 1, RLENGTH - 2), ne, ", ")
                embd = size; embd_row = size / ne[2]
            } else {
                if ($2 == "output.weight") untied = 1
                sum += size
            }
        }
        END { if (sum == 0) exit 1; printf "%.0f\n", sum + (untied ? embd_row : embd) }' ||
        die "vnpu-gguf could not list the tensors of $1"
}
declare -A file bytes
for m in $MODELS; do
    file[$m]=$(model_file "$m")
    bytes[$m]=$(token_bytes "${file[$m]}")
done

step "read bandwidth ($T threads, $BW_MB MiB)"
cat >"$work/bw.c" <<'EOF'
/* Read bandwidth: nthreads threads each sum their 1/nthreads of a buffer of mib MiB (first touched by its reader),
 * reps timed passes, the best printed in GB/s (1e9 bytes/s). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct part {
    uint64_t *p;
    size_t n;
    int init;
    uint64_t sum;
};

static void *reader(void *arg) {
    struct part *pt = arg;
    if (pt->init) {
        memset(pt->p, 1, pt->n * sizeof(uint64_t));
        return NULL;
    }
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= pt->n; i += 4) {
        s0 += pt->p[i];
        s1 += pt->p[i + 1];
        s2 += pt->p[i + 2];
        s3 += pt->p[i + 3];
    }
    pt->sum = s0 + s1 + s2 + s3;
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: bw THREADS MIB REPS\n");
        return 2;
    }
    const int nth = atoi(argv[1]), reps = atoi(argv[3]);
    const size_t bytes = (size_t) atol(argv[2]) << 20;
    if (nth < 1 || nth > 256 || reps < 1 || bytes < ((size_t) nth << 20)) {
        fprintf(stderr, "bw: THREADS 1..256, MIB >= THREADS, REPS >= 1\n");
        return 2;
    }
    uint64_t *buf = aligned_alloc(4096, bytes);
    struct part *parts = calloc((size_t) nth, sizeof(*parts));
    pthread_t *th = calloc((size_t) nth, sizeof(*th));
    if (!buf || !parts || !th) {
        fprintf(stderr, "bw: cannot allocate %zu bytes\n", bytes);
        return 1;
    }
    const size_t per = bytes / sizeof(uint64_t) / (size_t) nth / 4 * 4;
    double best = 0.0;
    uint64_t check = 0;
    for (int r = -1; r < reps; r++) {
        const double t0 = now_s();
        for (int t = 0; t < nth; t++) {
            parts[t] = (struct part) {.p = buf + (size_t) t * per, .n = per, .init = r < 0};
            if (pthread_create(&th[t], NULL, reader, &parts[t]) != 0) {
                fprintf(stderr, "bw: cannot start thread %d\n", t);
                return 1;
            }
        }
        for (int t = 0; t < nth; t++) {
            pthread_join(th[t], NULL);
            check += parts[t].sum;
        }
        const double gbs = (double) (per * (size_t) nth * sizeof(uint64_t)) / (now_s() - t0) / 1e9;
        if (r >= 0 && gbs > best) {
            best = gbs;
        }
    }
    /* every byte is 1: the sums must be reps x the bytes read, else the loop was not run as written */
    if (check != (uint64_t) reps * per * (size_t) nth * 0x0101010101010101ull) {
        fprintf(stderr, "bw: wrong checksum\n");
        return 1;
    }
    printf("%.2f\n", best);
    return 0;
}
EOF
cc=${CC:-cc}
"$cc" -std=c11 -O3 -march=native -pthread -Wall -Wextra -Werror -o "$work/bw" "$work/bw.c" 2>"$work/bw.err" || {
    cat "$work/bw.err" >&2
    die "cannot build the bandwidth reader with $cc"
}
gbs=$("$work/bw" "$T" "$BW_MB" 5) || die "the bandwidth reader failed"
echo "# read bandwidth: $gbs GB/s" >&2

# run LABEL MODEL ROUND TOOL...: TOOL's csv into $work/MODEL.LABEL.ROUND.csv, its load line echoed
run() {
    local label=$1 m=$2 i=$3
    shift 3
    "$@" -o csv >"$work/$m.$label.$i.csv" 2>"$work/err" || {
        cat "$work/err" >&2
        die "$label on $m failed: $*"
    }
    grep -E '^# (cpus|other processes)' "$work/err" | sed "s/^# /# $label: /" >&2 || true
}
for m in $MODELS; do
    step "$m (${file[$m]})"
    i=1
    while [ "$i" -le "$ROUNDS" ]; do
        run llama "$m" "$i" "$obin/llama_bench" -m "${file[$m]}" -p "$P" -n "$N" -r "$R" -t "$T"
        run htp0 "$m" "$i" "$bench" -m "${file[$m]}" -dev HTP0 -p "$P" -n "$N" -r "$R"
        if [ "$P" -gt 0 ]; then
            run hvx "$m" "$i" env VNPU_MM_PATH=hvx "$bench" -m "${file[$m]}" -dev HTP0 -p "$P" -n 0 -r "$R"
        fi
        i=$((i + 1))
    done
done
step ""

echo "read bandwidth $gbs GB/s ($T threads); bound = bandwidth / weight bytes per token"
echo
echo "| model | weights read per token | test | llama.cpp CPU t/s | HTP0 t/s | ratio | HTP0 hvx t/s | ratio |" \
    "tg bound t/s | llama.cpp / bound | HTP0 / bound |"
echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for m in $MODELS; do
    # The csvs of both tools have the columns test and ts_mean; they are found by header name, counted from the
    # end of the line, since a quoted model name may hold commas.
    awk -F, -v m="$m" -v bytes="${bytes[$m]}" -v gbs="$gbs" '
        function unq(s) { gsub(/"/, "", s); return s }
        function get(name) { return unq($(NF - from_end[FILENAME, name])) }
        FNR == 1 { for (c = 1; c <= NF; c++) from_end[FILENAME, unq($c)] = NF - c; next }
        {
            n = split(FILENAME, part, "."); tool = part[n - 2]; t = get("test")
            sum[tool, t] += get("ts_mean"); cnt[tool, t]++
            if (!(t in seen)) { seen[t] = 1; order[++ntests] = t }
        }
        function mean(tool, t) { return cnt[tool, t] ? sum[tool, t] / cnt[tool, t] : 0 }
        function cell(v, f) { return v > 0 ? sprintf(f, v) : "-" }
        END {
            bound = gbs * 1e9 / bytes
            for (k = 1; k <= ntests; k++) {
                t = order[k]; l = mean("llama", t); v = mean("htp0", t); h = mean("hvx", t); tg = t ~ /^tg/
                printf "| %s | %.1f MiB | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, bytes / 1048576, t,
                    cell(l, "%.2f"), cell(v, "%.2f"), cell(l > 0 ? v / l : 0, "%.2f"), cell(h, "%.2f"),
                    cell(l > 0 ? h / l : 0, "%.2f"), tg ? sprintf("%.1f", bound) : "-",
                    tg ? cell(l / bound, "%.2f") : "-", tg ? cell(v / bound, "%.2f") : "-"
            }
        }' "$work/$m".*.csv
done
