# Shared helpers of the benchmark scripts (sourced, not run).
#
# measure LIMIT OUT CMD...   runs CMD with stdout+stderr to OUT, killed after
#                            LIMIT seconds; prints "CPU WALL KB STATUS":
#                            CPU seconds (user + system, microsecond
#                            resolution), wall seconds, peak resident
#                            memory in KB, STATUS ok | timeout | error.
#                            The stack limit is lifted: NuSMV 2.5.4's BMC
#                            recurses deeply and dies with SIGSEGV on the
#                            default 8 MB stack (hidato 9x9 models).
# median                     median of the numbers on stdin (one a line).
# nusmv_verdict OUT          solved | unsat | error from NuSMV's output
#                            (NuSMV exits 0 even when a spec is false).

measure() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
limit, out, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
start = time.monotonic()
def unlimited_stack():
    hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))
    except (ValueError, OSError):
        pass
with open(out, "w") as f:
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, preexec_fn=unlimited_stack)
    try:
        status = "ok" if p.wait(timeout=limit) == 0 else "error"
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        status = "timeout"
wall = time.monotonic() - start
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.4f} {wall:.4f} {r.ru_maxrss} {status}")
PY
}

median() {
    sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'
}

nusmv_verdict() {
    if grep -q "is false" "$1"; then echo solved
    elif grep -qE "is true|no counterexample found with bound" "$1"; then echo unsat
    else echo error
    fi
}
