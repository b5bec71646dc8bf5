#!/usr/bin/env python3
"""The tables of docs/GGML.md "Measured": which cases of llama.cpp's test-backend-ops HTP0 supports, per op, and
why it refuses the others, grouped by reason.

Runs `test-backend-ops support -b HTP0 --output csv` (supports_op once per case, on the case's output node) with
libggml-vnpu.so loaded (GGML_BACKEND_PATH) and VNPU_VERBOSE=1 VNPU_LOG=3, so that every supports_op answer prints
one line: vnpu's device rule ("vnpu-htp: HTP0 supports-op OP : ... : no (why)") or the adapter's refusal of a GGML
feature vnpu's op lacks ("HTP0: OP 'name' not supported: why"). The n-th such line is the n-th CSV row. A reason is
grouped by its text with the types and numbers of the case (before the rule, the last parenthesis) taken out: the
group lists the ones it has.

Usage: scripts/ggml-support-table.py PLUGIN BINDIR [OP,OP,...]
  PLUGIN  build/lib/libggml-vnpu.so;  BINDIR  ../shared/oracle/upstream.sh --bindir
  OPs     the ops whose refusals are listed (default: the ops vnpu's NPU kernels implement); the table of counts
          covers every op HTP0 supports a case of, and these.
Prints Markdown on stdout; exits non-zero when test-backend-ops fails or its lines and rows do not pair up.
"""
import csv
import io
import os
import re
import subprocess
import sys

KERNEL_OPS = ("MUL_MAT,MUL_MAT_ID,ADD,SUB,MUL,DIV,RMS_NORM,SCALE,SILU,GELU,SWIGLU,ROPE,SOFT_MAX,FLASH_ATTN_EXT,"
              "GET_ROWS,SET_ROWS,CPY,CONT").split(",")

DEVICE = re.compile(r"^vnpu-htp: HTP0 supports-op (\S+) : .* : (yes|no)(?: \((.*)\))?$")
ADAPTER = re.compile(r"^HTP0: (\S+) '.*' not supported: (.*)$")
CASE_WORD = re.compile(r"\b(?:[fi](?:8|16|32|64)|bf16|q[1-8]_[01k]|q[2-8]_K|iq[1-4]_(?:xxs|xs|s|m|nl)|tq[12]_0|mxfp4|nvfp4|"
                       r"[0-9]+)\b")


def group(why):
    """why as (pattern, instance): the case's types and numbers, outside the rule's parenthesis, become '*'."""
    head, rule = why, ""
    cut = why.rfind(" (")
    if cut > 0 and why.endswith(")"):
        head, rule = why[:cut], why[cut:]
    words = CASE_WORD.findall(head)
    return CASE_WORD.sub("*", head) + rule, " ".join(words)


def run(plugin, bindir):
    env = dict(os.environ, GGML_BACKEND_PATH=plugin, VNPU_VERBOSE="1", VNPU_LOG="3")
    p = subprocess.run([os.path.join(bindir, "test-backend-ops"), "support", "-b", "HTP0", "--output", "csv"],
                       env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("test-backend-ops support exited %d:\n%s" % (p.returncode, p.stderr[-4000:]))
    rows = [r for r in csv.DictReader(io.StringIO(p.stdout)) if r.get("backend_name") == "HTP0"]
    answers = []  # (op, supported, kind, reason) in supports_op's order
    for line in p.stderr.splitlines():
        m = DEVICE.match(line)
        if m:
            answers.append((m.group(1), m.group(2) == "yes", "vnpu", m.group(3) or ""))
            continue
        m = ADAPTER.match(line)
        if m:
            answers.append((m.group(1), False, "adapter", m.group(2)))
    if len(answers) != len(rows):
        sys.exit("%d supports_op lines for %d cases: cannot pair them" % (len(answers), len(rows)))
    return rows, answers


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    listed = sys.argv[3].split(",") if len(sys.argv) == 4 else list(KERNEL_OPS)
    rows, answers = run(sys.argv[1], sys.argv[2])
    counts = {}   # op -> [supported, not]
    reasons = {}  # op -> {(kind, reason): n}
    for row, (op, yes, kind, why) in zip(rows, answers):
        supported = row["supported"] == "1"
        if supported != yes:
            sys.exit("case %s(%s): CSV says %s, the log %s" % (row["op_name"], row["op_params"], supported, yes))
        c = counts.setdefault(row["op_name"], [0, 0])
        c[0 if supported else 1] += 1
        if not supported:
            pattern, instance = group(why)
            r = reasons.setdefault(row["op_name"], {}).setdefault((kind, pattern), {})
            r[instance] = r.get(instance, 0) + 1
    shown = [op for op in counts if counts[op][0] > 0 or op in listed]
    print("| op | cases | supported | not supported |")
    print("|---|---:|---:|---:|")
    for op in sorted(shown, key=lambda o: (o not in listed, o)):
        s, n = counts[op]
        print("| %s | %d | %d | %d |" % (op, s + n, s, n))
    others = sorted(op for op in counts if op not in shown)
    print("\nEvery case of the other %d ops is refused (op not in vnpu): %s.\n" % (len(others), ", ".join(others)))
    for op in listed:
        if not reasons.get(op):
            continue
        print("#### %s: refused cases by reason\n" % op)
        print("| cases | by | reason (VNPU_VERBOSE=1, VNPU_LOG=3) | its * (cases) |")
        print("|---:|---|---|---|")
        groups = [(sum(inst.values()), key, inst) for key, inst in reasons[op].items()]
        for n, (kind, pattern), inst in sorted(groups, key=lambda g: (-g[0], g[1])):
            seen = ", ".join("%s (%d)" % (i, c) for i, c in sorted(inst.items(), key=lambda ic: (-ic[1], ic[0])) if i)
            print("| %d | %s | %s | %s |" % (n, kind, pattern.replace("|", "\\|"), seen))
        print()


if __name__ == "__main__":
    main()
