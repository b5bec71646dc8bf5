#!/usr/bin/env python3
"""hvx-inspect: spills and float promotions in NPU-side code, from its Hexagon disassembly.

Compiles each NPU-side C source for Hexagon (clang --target=hexagon -mvNN -mhvx -mhvx-length=128b
-ffreestanding -O2), disassembles it with llvm-objdump (--mcpu=hexagonvNN
--mattr=+hvxvNN,+hvx-length128b,+hvx-ieee-fp, without which HVX packets, and the IEEE float ones of v68+, print
as <unknown>), and reports per function:

  in-loop vector spills  HVX loads/stores (vmem) to the stack frame inside a loop: the register allocator
                         ran out of the 32 vector registers, and every iteration pays a store and a load.
                         A stack address is r29 (SP), r30 (FP) or a register set from one of them by a
                         transfer or an add of an immediate; loops are hardware loops (loopN(start, ..)
                         up to the packet marked :endloopN) and backward jumps.
  scalar stack accesses  mem*(r29/r30..) inside loops, reported for information.
  float promotions       single-to-double conversions (convert_sf2df), double arithmetic (dfadd,
                         dfmpy*, dfcmp, convert_*df*) and calls of soft-float or double helpers
                         (__hexagon_divsf3, __hexagon_adddf3, __extendsfdf2, sqrt, ...).
  division helper calls  calls of the integer division helpers (__hexagon_udivsi3, __hexagon_umodsi3, the
                         signed and 64-bit forms __hexagon_divsi3 .. __hexagon_umoddi3): Hexagon has no divide
                         instruction, and each call is a loop of tens of cycles. A function's count includes
                         those of the functions of the same object it calls directly, and theirs in turn (a
                         helper kept out of line counts for its caller as an inlined one does).

The seed's "Binary Inspection and Spill Analysis" asks for zero in-loop vector spills and no promotions
in compute kernels, its "Avoid Scalar Division in Inner Loops" for fastdiv or counters instead of
division; --strict makes any of them an error (exit 1) for the functions --func selects.
--allow FUNC=N lets FUNC keep up to N in-loop vector spills (each allowance carries its reason where it is
given, scripts/ci-hvx.sh); under --strict an allowance above the count found is an error too, so the list
only ever shrinks.

  hvx-inspect.py [--spills] [--promotions] [--divisions] [--strict] [--func REGEX] [--allow FUNC=N ...]
                 [--arch 68] [--objdir DIR | SOURCE|OBJECT ...]   (no check named: all three)
  hvx-inspect.py --disasm FUNC [--objdir DIR | SOURCE ...]   annotated disassembly: loop depth, spills, promotions
  hvx-inspect.py --calibrate OUT.tsv [--arch 69] [--objdir DIR | SOURCE|OBJECT ...]   the cost model's calibration

--calibrate OUT.tsv writes, for every function with at least one HVX instruction, what its compiled hot loop
costs per iteration; the cost model (src/perf) reads it as the build writes it, lib/vnpu-calib-vNN.tsv. The
emulation counts the HVX intrinsics a kernel executes, but a VLIW core issues packets of 1-4 instructions, so the
time is in packets: the model takes a function's executed intrinsics times packets / hvx of its line, the ratio
the real compiler's scheduling reached in the loop that runs most. '#' lines are comments (the arch and the
compiler the objects name), then a header and one tab-separated line per function:
  function  its symbol name (static functions too); a name defined in two objects stops the tool (exit 2)
  packets   packets per iteration of the hot loop: every packet, a { ... } group or a lone instruction, from
            the loop's start to its end packet, inclusive
  hvx       HVX instructions in those packets: those naming a vector register (v7, v1:0), a vector predicate
            (q0..q3) or doing vmem, vgather or vscatter; HMX instructions (mxmem, ...) are not HVX
  depth     loop depth of the hot loop: the loops it lies in, itself included (0: no loop)
  loop      the hot loop's start address in its object (hex), or - at depth 0
The hot loop is, of the loops holding HVX instructions with no such loop inside them, the one holding the most
(the first of equals). A function without one gets the packets holding HVX instructions and their HVX
instructions over its whole body, at depth 0. A packet llvm-objdump cannot decode (<unknown>) stops the tool
(exit 2) rather than miscount. clang 14 targets Hexagon up to v69 (-mv69; no -mv73..-mv81), so the v69 file
stands for v73..v81 too, an assumption of the model: that the ratio packets / hvx of a v69 loop holds for the same
loop built for v73+, although there the f32 kernels take the IEEE sf forms (HTP_ARCH_IEEE_SF, src/htp/htp-arch.h)
where v69 code has qf32 ones and their conversions back to sf.

Without SOURCE it inspects src/htp/*.c and src/hvx/*.c of this repository. --objdir DIR inspects the objects
someone else compiled instead (scripts/ci-hvx.sh's compile check keeps them): every DIR/**/*.o, each reported
under its path in DIR without the .o (DIR/src/htp/rope-ops.c.o is src/htp/rope-ops.c). An object (given or
under DIR) must be a Hexagon ELF object of --arch (its e_flags), or the tool stops: v68 code read as v69 would
inspect the wrong build. Exit status: 0 clean (or not --strict), 1 violations under --strict, 2 the tool could
not compile or disassemble, or an object is missing or not of --arch.
"""

import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_INCLUDES = ["src/htp", "src/hvx", "src/vdsp"]
DEFAULT_SOURCES = ["src/htp/*.c", "src/hvx/*.c"]

# llvm-objdump -d -r: "   1a0:\t24 c4 3d 28\t283dc424 \tvmem(r29+#4) = v8.new } " (relocations may follow on the line)
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f]{2}(?: [0-9a-f]{2}){3}\t[0-9a-f]{8}\s*(.*)$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
RELOC_RE = re.compile(r"R_HEX_\w+\s+([\w.$@]+)")
RELOC_LINE_RE = re.compile(r"^\s*[0-9a-f]+:\s+R_HEX_\w+\s+([\w.$@]+)")
HWLOOP_RE = re.compile(r"\bloop([01])\((0x[0-9a-f]+)")
JUMP_RE = re.compile(r"\bjump(?::n?t)?\s+(0x[0-9a-f]+)")
CALL_RE = re.compile(r"\b(call|jump)\b")
VMEM_RE = re.compile(r"\bvmemu?\((r\d+)(?:\+#-?\d+|\+\+#-?\d+|\+\+m\d)?\)(?::nt)?")
VMEM_STORE_RE = re.compile(r"\bvmemu?\([^)]*\)(?::nt)?\s*=")
SMEM_RE = re.compile(r"\bmemu?[bhwd]\((r\d+)(?:\+#-?\d+|\+\+#-?\d+)?\)")
DEF_RE = re.compile(r"^\s*(?:if \(!?p\d(?:\.new)?\)\s*)?(r\d+(?::\d+)?)\s*=\s*(.*?)\s*$")
FRAME_COPY_RE = re.compile(r"^(?:add\((r\d+),#-?\d+\)|(r\d+))$")
FRAME_REGS = ("r29", "r30")
SHOW = 8  # violations listed per function

# Double-precision instructions, and helper calls that mean float work left HVX/single precision.
DOUBLE_INSN_RE = re.compile(r"\b(convert_\w*df\w*|df(?:add|sub|mpy\w*|cmp\.\w+|class|min|max|make)\b)")
SF2DF_RE = re.compile(r"\bconvert_sf2df\b")
FLOAT_HELPER_RE = re.compile(
    r"^(__hexagon_\w*(?:sf|df)\w*|__hexagon_(?:fast\w*|sqrt\w*|div\w*f\w*)|"
    r"__(?:add|sub|mul|div|neg|extend|trunc|fix|fixuns|float|floatun|cmp|eq|ne|lt|le|gt|ge|unord)\w*(?:sf|df)\w*|"
    r"(?:sqrt|cbrt|exp|exp2|expm1|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|erf|"
    r"erfc|fmod|floor|ceil|round|trunc|rint|lrint|llrint|ldexp|frexp|hypot)f?)$"
)
# Integer division helpers: Hexagon's (__hexagon_udivsi3, __hexagon_moddi3, ...) and compiler-rt's names.
INT_DIV_HELPER_RE = re.compile(r"^__(?:hexagon_)?u?(?:div|mod|divmod)[sd]i[34]$")
CALL_ADDR_RE = re.compile(r"\bcall\s+(0x[0-9a-f]+)")
# HVX: an instruction naming a vector register (v7, v1:0 and their .new/.tmp forms), a vector predicate or doing a
# vector memory access, gather or scatter. HMX instructions (mxmem, ...) name none of them.
HVX_RE = re.compile(r"\b(?:v\d+|q[0-3]|vmemu?|vgather|vscatter)\b")


class Insn:
    __slots__ = ("addr", "text", "relocs", "packet_end")

    def __init__(self, addr, text):
        self.addr = addr
        self.text = text
        self.relocs = []
        self.packet_end = "}" in text

    def hvx(self):
        """The HVX instructions of this line (a line can hold two: a duplex or compound prints as a; b)."""
        return sum(1 for part in insn_body(self.text).split(";") if HVX_RE.search(part))


class Finding:
    __slots__ = ("addr", "kind", "text", "in_loop")

    def __init__(self, addr, kind, text, in_loop):
        self.addr, self.kind, self.text, self.in_loop = addr, kind, text, in_loop


class Function:
    def __init__(self, name, source):
        self.name = name
        self.source = source
        self.insns = []
        self.loops = []  # (start, end) address ranges, end inclusive
        self.findings = []
        self.callees = []  # names (relocations) or addresses of the direct calls and tail jumps

    def in_loop(self, addr):
        return any(s <= addr <= e for s, e in self.loops)

    def loop_depth(self, addr):
        return sum(1 for s, e in self.loops if s <= addr <= e)

    def packets(self):
        """The packets of the function in address order, each a list of its instructions: a { ... } group or a
        lone instruction."""
        out, cur, lone = [], None, False
        for insn in self.insns:
            if cur is None:
                cur, lone = [], "{" not in insn.text
            cur.append(insn)
            if lone or insn.packet_end:
                out.append(cur)
                cur = None
        return out + ([cur] if cur else [])

    def count(self, kind, in_loop=None):
        return sum(1 for f in self.findings if f.kind == kind and (in_loop is None or f.in_loop == in_loop))


def insn_body(text):
    """The instruction text without packet braces, loop-end markers and relocation columns."""
    body = text.split("\t\t")[0] if RELOC_RE.search(text) else text
    body = body.replace("{", " ").replace("}", " ")
    body = re.sub(r":endloop\d+", " ", body)
    return body.strip()


def parse_objdump(text, source):
    funcs = []
    cur = None
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = Function(m.group(2), source)
            funcs.append(cur)
            continue
        if cur is None:
            continue
        m = INSN_RE.match(line)
        if m:
            insn = Insn(int(m.group(1), 16), m.group(2).rstrip())
            insn.relocs = RELOC_RE.findall(m.group(2))
            cur.insns.append(insn)
            continue
        m = RELOC_LINE_RE.match(line)
        if m and cur.insns:
            cur.insns[-1].relocs.append(m.group(1))
    return funcs


def find_loops(fn):
    loops = []
    for i, insn in enumerate(fn.insns):
        body = insn_body(insn.text)
        for m in HWLOOP_RE.finditer(body):
            n, start = m.group(1), int(m.group(2), 16)
            marks = (":endloop" + n, ":endloop01")
            end = next((x.addr for x in fn.insns[i:] if x.addr >= start and any(k in x.text for k in marks)), None)
            if end is not None:
                loops.append((start, end))
        m = JUMP_RE.search(body)
        if m and not insn.relocs:
            target = int(m.group(1), 16)
            if target <= insn.addr:
                loops.append((target, insn.addr))
    # Back edges to one start are one loop (a natural loop has one header): a `continue` jumping back before the
    # loop's end makes no inner loop. The loop ends at its last back edge.
    ends = {}
    for start, end in loops:
        ends[start] = max(end, ends.get(start, end))
    fn.loops = sorted(ends.items())


def analyse(fn):
    find_loops(fn)
    frame = set(FRAME_REGS)
    for insn in fn.insns:
        body = insn_body(insn.text)
        loop = fn.in_loop(insn.addr)
        for part in body.split(";"):
            part = part.strip()
            if not part:
                continue
            m = VMEM_RE.search(part)
            if m and m.group(1) in frame:
                kind = "vector spill store" if VMEM_STORE_RE.search(part) else "vector spill load"
                fn.findings.append(Finding(insn.addr, kind, part, loop))
            m = SMEM_RE.search(part)
            if m and m.group(1) in frame and loop:
                fn.findings.append(Finding(insn.addr, "scalar stack access", part, loop))
            if SF2DF_RE.search(part):
                fn.findings.append(Finding(insn.addr, "single-to-double conversion", part, loop))
            elif DOUBLE_INSN_RE.search(part):
                fn.findings.append(Finding(insn.addr, "double arithmetic", part, loop))
            m = DEF_RE.match(part)
            if m and not part.startswith(("mem", "vmem")):
                dest, rhs = m.group(1), m.group(2)
                src = FRAME_COPY_RE.match(rhs)
                derived = src and (src.group(1) or src.group(2)) in frame
                for reg in re.findall(r"\d+", dest) if ":" in dest else [dest[1:]]:
                    r = "r" + reg
                    if r in FRAME_REGS:
                        continue
                    if derived and ":" not in dest:
                        frame.add(r)
                    else:
                        frame.discard(r)
        if CALL_RE.search(body):
            for sym in insn.relocs:
                if FLOAT_HELPER_RE.match(sym):
                    fn.findings.append(Finding(insn.addr, "float helper call " + sym, body, loop))
                elif INT_DIV_HELPER_RE.match(sym):
                    fn.findings.append(Finding(insn.addr, "division helper call " + sym, body, loop))
            fn.callees += insn.relocs
            m = CALL_ADDR_RE.search(body) or JUMP_RE.search(body)
            if m and not insn.relocs:
                fn.callees.append(int(m.group(1), 16))


def calibrate(fn):
    """(packets, hvx, depth, loop start or None) of fn's hot loop, as --calibrate writes them; None when fn has no
    HVX instruction. The hot loop: of the loops holding HVX instructions with no such loop inside them, the one
    holding the most (the first of equals); its packets are all those from its start to its end, inclusive, and
    its depth the loops it lies in, itself included. Without one: the packets holding HVX instructions and those
    instructions, over the whole function, at depth 0."""
    packets = [(p[0].addr, sum(insn.hvx() for insn in p)) for p in fn.packets()]
    if not any(h for _, h in packets):
        return None

    def hvx_in(loop):
        return sum(h for a, h in packets if loop[0] <= a <= loop[1])

    def inside(inner, outer):
        return outer[0] <= inner[0] and inner[1] <= outer[1]

    with_hvx = [loop for loop in fn.loops if hvx_in(loop)]
    innermost = [lp for lp in with_hvx if not any(o != lp and inside(o, lp) for o in with_hvx)]
    if not innermost:
        return sum(1 for _, h in packets if h), sum(h for _, h in packets), 0, None
    hot = max(innermost, key=hvx_in)  # max() keeps the first of equals: the lowest start
    return (sum(1 for a, _ in packets if hot[0] <= a <= hot[1]), hvx_in(hot),
            sum(1 for lp in fn.loops if inside(hot, lp)), hot[0])


def write_calibration(path, funcs, args, compilers):
    """The calibration file of funcs (Interface 2 of the cost model, this docstring's --calibrate); exit 2 on a
    function name defined in two objects."""
    rows, where = [], {}
    for fn in funcs:
        bad = next((insn for insn in fn.insns if "<unknown>" in insn.text), None)
        if bad is not None:
            print(f"hvx-inspect: --calibrate: {fn.source}: {fn.name}: llvm-objdump cannot decode the packet at "
                  f"{bad.addr:#x} (<unknown>), so its packets cannot be counted", file=sys.stderr)
            sys.exit(2)
        cal = calibrate(fn)
        if cal is None:
            continue
        if fn.name in where:
            print(f"hvx-inspect: --calibrate: {fn.name} is defined in {where[fn.name]} and in {fn.source}: "
                  "a function name must be a key of the calibration", file=sys.stderr)
            sys.exit(2)
        where[fn.name] = fn.source
        packets, hvx, depth, loop = cal
        rows.append(f"{fn.name}\t{packets}\t{hvx}\t{depth}\t{'-' if loop is None else hex(loop)}\n")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"# Hexagon v{args.arch}, {'; '.join(sorted(compilers)) or 'compiler unknown'}\n")
        f.write("# hot-loop packets and HVX instructions per iteration of each function with HVX instructions, "
                "from its disassembly (scripts/hvx-inspect.py --calibrate)\n")
        f.write("function\tpackets\thvx\tdepth\tloop\n")
        f.writelines(rows)
    os.replace(tmp, path)
    print(f"hvx-inspect: {len(rows)} functions with HVX instructions calibrated (v{args.arch}) -> {path}")


def division_calls(fn, by_key):
    """The division helper calls of fn and of the functions of its object it calls, directly or not."""
    out, seen, todo = [], {id(fn)}, [(fn, None)]
    while todo:
        f, via = todo.pop()
        for x in f.findings:
            if x.kind.startswith("division helper call"):
                out.append(x if via is None else Finding(x.addr, f"{x.kind} (in {via})", x.text, x.in_loop))
        for key in f.callees:
            callee = by_key.get((f.source, key))
            if callee is not None and id(callee) not in seen:
                seen.add(id(callee))
                todo.append((callee, callee.name))
    return out


def violations(fn, spills, promotions, divisions, allowed=0):
    out = list(divisions)
    in_loop_spills = fn.count("vector spill store", True) + fn.count("vector spill load", True)
    for f in fn.findings:
        if spills and f.kind.startswith("vector spill") and f.in_loop and in_loop_spills > allowed:
            out.append(f)
        if promotions and (f.kind in ("single-to-double conversion", "double arithmetic")
                           or f.kind.startswith("float helper call")):
            out.append(f)
    return out


def tool(name, env):
    path = os.environ.get(env) or shutil.which(name) or shutil.which(name + "-14")
    if not path:
        sys.exit(f"hvx-inspect: {name} not found (set {env}, or install Debian's "
                 f"{'clang' if name == 'clang' else 'llvm'})")
    return path


def compile_source(src, obj, args):
    cmd = [args.cc, "--target=hexagon", f"-mv{args.arch}", "-mhvx", "-mhvx-length=128b", "-ffreestanding",
           args.opt, "-ffp-contract=off", f"-DVNPU_HTP_ARCH={args.arch}", "-c", src, "-o", obj]
    cmd += [f"-I{os.path.join(REPO, d)}" for d in DEFAULT_INCLUDES] + [f"-I{d}" for d in args.include]
    cmd += [f"-D{d}" for d in args.define]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        print(f"hvx-inspect: cannot compile {src} for Hexagon v{args.arch}", file=sys.stderr)
        sys.exit(2)


EM_HEXAGON = 164
EF_HEXAGON_MACH = 0x3FF  # e_flags: the Hexagon version the object is for, 0x68 for v68


def check_object(obj, args):
    """obj is a 32-bit little-endian ELF object for Hexagon of args.arch: exit 2 if not."""
    with open(obj, "rb") as f:
        hdr = f.read(52)
    ok = len(hdr) == 52 and hdr[:4] == b"\x7fELF" and hdr[4] == 1 and hdr[5] == 1
    machine = int.from_bytes(hdr[18:20], "little") if ok else 0
    flags = int.from_bytes(hdr[36:40], "little") if ok else 0
    if machine != EM_HEXAGON or flags & EF_HEXAGON_MACH != int(args.arch, 16):
        what = f"a Hexagon object for v{flags & EF_HEXAGON_MACH:x}" if machine == EM_HEXAGON else \
            "not a 32-bit Hexagon ELF object"
        print(f"hvx-inspect: {obj}: {what}, expected v{args.arch} (--arch {args.arch})", file=sys.stderr)
        sys.exit(2)


def elf_comment(obj):
    """The strings of the .comment section of the ELF32 object obj (the compiler's identification), [] without."""
    with open(obj, "rb") as f:
        elf = f.read()
    shoff, = struct.unpack_from("<I", elf, 32)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 46)
    sections = [struct.unpack_from("<I12xII", elf, shoff + i * shentsize) for i in range(shnum)]
    names = sections[shstrndx][1] if shstrndx < shnum else 0
    for name, offset, size in sections:
        if elf[names + name:names + name + 9] == b".comment\0":
            return [c.decode(errors="replace") for c in elf[offset:offset + size].split(b"\0") if c]
    return []


def disassemble(obj, args):
    cmd = [args.objdump, "-d", "-r", f"--mcpu=hexagonv{args.arch}",
           f"--mattr=+hvxv{args.arch},+hvx-length128b,+hvx-ieee-fp", obj]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        print(f"hvx-inspect: llvm-objdump failed on {obj}", file=sys.stderr)
        sys.exit(2)
    return r.stdout


def object_dir_inputs(objdir):
    """(object, name) of every object under objdir, named by its path there without the .o."""
    objs = sorted(glob.glob(os.path.join(objdir, "**", "*.o"), recursive=True))
    if not objs:
        print(f"hvx-inspect: --objdir {objdir}: no objects (*.o) there", file=sys.stderr)
        sys.exit(2)
    return [(obj, os.path.relpath(obj, objdir)[:-2]) for obj in objs]


def load_functions(args):
    """The analysed functions of the inputs, and the compilers their objects name (.comment)."""
    if args.objdir:
        inputs = object_dir_inputs(args.objdir)
    else:
        paths = args.inputs or sorted(p for g in DEFAULT_SOURCES for p in glob.glob(os.path.join(REPO, g)))
        inputs = [(p, os.path.relpath(p, REPO) if p.startswith(REPO) else p) for p in paths]
    funcs, compilers = [], set()
    with tempfile.TemporaryDirectory(prefix="hvx-inspect-") as tmp:
        for i, (path, name) in enumerate(inputs):
            if not os.path.isfile(path):
                print(f"hvx-inspect: {path}: no such file", file=sys.stderr)
                sys.exit(2)
            obj = path
            if path.endswith(".c"):
                obj = os.path.join(tmp, f"{i}-{os.path.basename(path)}.o")
                compile_source(path, obj, args)
            else:
                check_object(obj, args)
            compilers.update(elf_comment(obj))
            for fn in parse_objdump(disassemble(obj, args), name):
                analyse(fn)
                funcs.append(fn)
    return funcs, compilers


def print_disasm(fn):
    print(f"{fn.name} ({fn.source}, Hexagon): {len(fn.loops)} loops, "
          f"{fn.count('vector spill store', True) + fn.count('vector spill load', True)} in-loop vector spills")
    notes = {}
    for f in fn.findings:
        notes.setdefault(f.addr, []).append(f.kind + (" (in loop)" if f.in_loop else ""))
    starts = {s for s, _ in fn.loops}
    ends = {e for _, e in fn.loops}
    for insn in fn.insns:
        depth = fn.loop_depth(insn.addr)
        mark = ">" if insn.addr in starts else ("<" if insn.addr in ends else " ")
        note = "   <<< " + "; ".join(notes[insn.addr]) if insn.addr in notes else ""
        print(f"{insn.addr:8x} {'|' * depth:<4}{mark} {insn.text.expandtabs(4).strip()}{note}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("inputs", nargs="*", help="C sources (compiled for Hexagon) or Hexagon objects")
    ap.add_argument("--objdir", metavar="DIR", help="inspect the Hexagon objects under DIR (DIR/**/*.o) instead")
    ap.add_argument("--spills", action="store_true", help="check in-loop vector spills")
    ap.add_argument("--promotions", action="store_true", help="check float promotions")
    ap.add_argument("--divisions", action="store_true", help="check integer division helper calls")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a selected function has a violation")
    ap.add_argument("--func", default="", help="regular expression selecting the functions checked")
    ap.add_argument("--allow", metavar="FUNC=N", action="append", default=[],
                    help="FUNC may keep up to N in-loop vector spills (exactly N under --strict)")
    ap.add_argument("--disasm", metavar="FUNC", help="print FUNC's annotated disassembly")
    ap.add_argument("--calibrate", metavar="OUT.tsv", help="write the packets per iteration of the hot loop of "
                    "every function with HVX instructions to OUT.tsv (the cost model's calibration)")
    ap.add_argument("--arch", default="68", choices=["68", "69"], help="Hexagon/HVX version (default 68)")
    ap.add_argument("--opt", default="-O2", help="optimisation flag (default -O2)")
    ap.add_argument("-I", dest="include", action="append", default=[], help="more include directories")
    ap.add_argument("-D", dest="define", action="append", default=[], help="more macro definitions")
    args = ap.parse_args()
    if args.objdir and args.inputs:
        ap.error("--objdir and SOURCE|OBJECT arguments exclude each other")
    if args.calibrate and args.disasm:
        ap.error("--calibrate and --disasm exclude each other")
    args.cc = None if args.objdir else tool("clang", "CLANG")  # objects need no compiler
    args.objdump = tool("llvm-objdump", "LLVM_OBJDUMP")
    if not args.spills and not args.promotions and not args.divisions:
        args.spills = args.promotions = args.divisions = True

    funcs, compilers = load_functions(args)
    if args.calibrate:
        write_calibration(args.calibrate, funcs, args, compilers)
        return 0
    if args.disasm:
        found = [fn for fn in funcs if fn.name == args.disasm]
        if not found:
            print(f"hvx-inspect: no function {args.disasm}", file=sys.stderr)
            return 2
        for fn in found:
            print_disasm(fn)
        return 0

    allow = {}
    for a in args.allow:
        name, _, n = a.partition("=")
        if not n.isdigit():
            print(f"hvx-inspect: --allow {a}: expected FUNC=N", file=sys.stderr)
            return 2
        allow[name] = int(n)
    select = re.compile(args.func)
    checked = [fn for fn in funcs if select.search(fn.name)]
    by_key = {}  # (source, name) and (source, start address) -> function: the targets of direct calls
    for fn in funcs:
        by_key[(fn.source, fn.name)] = fn
        if fn.insns:
            by_key[(fn.source, fn.insns[0].addr)] = fn
    total = 0
    stale = []
    for fn in checked:
        allowed = allow.get(fn.name, 0) if args.spills else 0
        divs = division_calls(fn, by_key)
        bad = violations(fn, args.spills, args.promotions, divs if args.divisions else [], allowed)
        total += len(bad)
        vs = fn.count("vector spill store", True) + fn.count("vector spill load", True)
        if vs < allowed:
            stale.append(f"{fn.name}: {vs} in-loop vector spills, {allowed} allowed: lower its allowance to {vs}")
        vs_all = fn.count("vector spill store") + fn.count("vector spill load")
        ss = fn.count("scalar stack access", True)
        pr = sum(1 for f in fn.findings if f.kind in ("single-to-double conversion", "double arithmetic")
                 or f.kind.startswith("float helper call"))
        status = "FAIL" if bad else "ok" if vs == 0 or not args.spills else f"ok ({allowed} allowed)"
        print(f"{status:4} {fn.source}: {fn.name}: {len(fn.loops)} loops, {vs} in-loop vector spills "
              f"({vs_all} in all), {ss} in-loop scalar stack accesses, {pr} float promotions, "
              f"{len(divs)} division helper calls")
        for f in bad[:SHOW]:
            print(f"       {f.addr:#x}{' in loop' if f.in_loop else ''}: {f.kind}: {f.text}")
        if len(bad) > SHOW:
            print(f"       ... and {len(bad) - SHOW} more (--disasm {fn.name} shows them all)")
    what = [w for w, on in (("in-loop vector spills", args.spills), ("float promotions", args.promotions),
                            ("division helper calls", args.divisions)) if on]
    what = ", ".join(what[:-1]) + " and " + what[-1] if len(what) > 1 else what[0]
    missing = sorted(set(allow) - {fn.name for fn in checked})
    stale += [f"{name}: allowed spills, but no such function is checked" for name in missing]
    for line in stale:
        print(f"STALE {line}")
    print(f"hvx-inspect: {len(checked)} functions checked for {what} (v{args.arch}"
          f"{', --func ' + args.func if args.func else ''}): {total} violations"
          f"{f', {len(stale)} stale allowances' if stale else ''}")
    return 1 if args.strict and (total or stale) else 0


if __name__ == "__main__":
    sys.exit(main())
