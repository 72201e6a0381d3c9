# Shared helpers of the benchmark scripts (sourced, not run).
#
# measure LIMIT OUT CMD...   runs CMD with stdout+stderr to OUT, killed after
#                            LIMIT seconds; prints "CPU WALL KB STATUS":
#                            CPU seconds (user + system, microsecond
#                            resolution), wall seconds, peak resident
#                            memory in KB, STATUS ok | timeout | error.
#                            Usage is the child's own (wait4); its memory
#                            reads at least the interpreter's ~14 MB, which
#                            the child shares until it execs (see peak_kb).
#                            The stack limit is lifted: NuSMV 2.5.4's BMC
#                            recurses deeply and dies with SIGSEGV on the
#                            default 8 MB stack (hidato 9x9 models).
# peak_kb LIMIT CMD...       peak resident memory in KB of one more run of
#                            CMD (output dropped, killed after LIMIT
#                            seconds), through GNU time, whose own small
#                            process forks it: the real peak, where
#                            `measure` cannot read below the interpreter's
#                            (numbrix-9x9-s1: 8 MB against 14). Prints
#                            nothing without /usr/bin/time, or when the run
#                            was killed.
# checkmate_setup            sets `bin` (the binary to measure: $CHECKMATE_BIN,
#                            e.g. an older build, else the release build,
#                            built first), `bin_label` (what to call it in a
#                            table header) and `tmp` (a scratch directory
#                            removed on exit); warns when the binary's
#                            layout (scripts/link-order.txt) is stale.
# median                     median of the numbers on stdin (one a line).
# solve_answer OUT           unique | 2+ | unsat from the JSON of
#                            `checkmate solve --count 2 --json` in OUT.
# nusmv_version NUSMV        "NuSMV 2.5.4" from the binary's banner (fails
#                            when it has none).
# nusmv_verdict OUT          solved | unsat | error from NuSMV's output
#                            (NuSMV exits 0 even when a spec is false).

measure() {
    python3 - "$@" <<'PY'
import os, resource, subprocess, sys, threading, time
limit, out, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
# Lifted here and inherited: a preexec_fn would make the child a forked
# interpreter until exec, and its time and memory would count.
hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
try:
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))
except (ValueError, OSError):
    pass
with open(out, "w") as f:
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
    killed = threading.Event()
    def kill():
        killed.set()
        p.kill()
    timer = threading.Timer(limit, kill)
    timer.start()
    # wait4 reports this child's own usage (RUSAGE_CHILDREN read ~60 ms
    # high here: it also counted the interpreter's own children).
    _, code, r = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    timer.cancel()
    p.returncode = code
status = "timeout" if killed.is_set() else ("ok" if code == 0 else "error")
print(f"{r.ru_utime + r.ru_stime:.6f} {wall:.6f} {r.ru_maxrss} {status}")
PY
}

peak_kb() {
    local limit=$1 out
    shift
    [[ -x /usr/bin/time ]] || return 0
    out=$(mktemp)
    if timeout "$limit" /usr/bin/time -f %M -o "$out" "$@" > /dev/null 2>&1; then
        tail -n1 "$out"
    fi
    rm -f "$out"
}

checkmate_setup() {
    bin=${CHECKMATE_BIN:-target/release/checkmate}
    bin_label=${CHECKMATE_BIN:-$(git rev-parse --short HEAD)}
    [[ -n ${CHECKMATE_BIN:-} ]] || nice cargo build --release -q
    link_order_check
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
}

# Warns (stderr) when a function that scripts/link-order.txt names is not
# in `$bin`: the layout is from an older tree (renamed functions, an edit
# that moved a `.llvm.<digits>` name, another compiler), the binary still
# works, but its short runs lose some of the layout's gain
# (scripts/link-order.sh writes it again). Every clone's build names the
# same functions (scripts/rustc-wrapper.sh), so a fresh layout matches
# them all.
link_order_check() {
    local order=scripts/link-order.txt total found
    [[ -f $order ]] && command -v nm >/dev/null || return 0
    total=$(sort -u "$order" | wc -l)
    found=$({ nm "$bin" 2>/dev/null || true; } | awk '{ print $NF }' | sort -u | comm -12 - <(sort -u "$order") | wc -l)
    if ((found < total)); then
        echo "bench: $bin has $found of the $total functions scripts/link-order.txt lays out;" \
            "run scripts/link-order.sh" >&2
    fi
}

median() {
    sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'
}

solve_answer() {
    python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print("unsat" if d["status"] == "unsat" else "unique" if d["unique"] else "2+")' "$1"
}

nusmv_verdict() {
    if grep -q "is false" "$1"; then echo solved
    elif grep -qE "is true|no counterexample found with bound" "$1"; then echo unsat
    else echo error
    fi
}

nusmv_version() {
    ("$1" -h 2>&1 || true) | grep -m1 -o 'NuSMV [0-9.]*'
}
