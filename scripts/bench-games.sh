#!/usr/bin/env bash
# Benchmark of the one-step strategies (`checkmate game analyze`, release
# build, one core): one markdown table row per case with game, strategy,
# tie rule, route (native scoring or the generic spec route: codes through
# SAT, outcomes from the spec's formulas), total, worst case and the median
# wall and CPU time of RUNS runs of the whole command (table, tree and
# analysis).
# Totals with a published reference (DESIGN.md) are checked; a mismatch
# fails the script. A last table times `game deduce` through SAT on
# Mastermind 8x8 (16.7 million codes, never enumerated).
#
# usage: scripts/bench-games.sh [--quick] [--stretch]
#   --quick    only Mastermind 4x6 and coins:12, native route
#   --stretch  add bulls-cows:4x10 and mastermind:5x5 (seconds each)
# env: RUNS (default 5), CHECKMATE (binary)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0; stretch=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --stretch) stretch=1 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
RUNS=${RUNS:-5}

cargo build --release --quiet
bin=${CHECKMATE:-target/release/checkmate}
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
# One core, as the targets are stated for one core.
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi

strategies=(first-possible max-models exp-models ent-models parts min-fixed exp-fixed)
# game | strategy | ties | route | expected total (empty: no reference)
cases=()
add_all() { # game route [expected totals in strategy order]
  local game=$1 route=$2; shift 2
  local i=0
  for s in "${strategies[@]}"; do
    cases+=("$game|$s|possible-first|$route|${1:-}")
    shift || true
    i=$((i + 1))
  done
}
add_all mastermind:4x6 native 7471 5801 5696 5722 5668
cases+=("mastermind:4x6|exp-models|lexicographic|native|5996")
cases+=("mastermind:4x6|ent-models|lexicographic|native|6017")
cases+=("mastermind:3x3|max-models|possible-first|native|74")
cases+=("mastermind:3x3|exp-models|lexicographic|native|76")
cases+=("mastermind:3x3|parts|possible-first|native|73")
add_all coins:12 native "" 72
if [[ $quick == 0 ]]; then
  add_all mastermind:4x7 native
  add_all mastermind:4x6 spec 7471 5801 5696 5722 5668
  add_all coins:12 spec "" 72
fi
if [[ $stretch == 1 ]]; then
  cases+=("bulls-cows:4x10|max-models|possible-first|native|")
  cases+=("mastermind:5x5|max-models|possible-first|native|")
fi

# Runs a command RUNS times; prints the median wall time and the median
# CPU time (user + system, which a busy shared machine inflates least) on
# one line, and the last standard output (JSON) on the next.
timed() {
  python3 - "$RUNS" "$@" <<'PY'
import resource, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
walls, cpus, out = [], [], ""
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
for _ in range(runs):
    t, c = time.perf_counter(), cpu()
    p = subprocess.run(cmd, capture_output=True, text=True)
    walls.append(time.perf_counter() - t)
    cpus.append(cpu() - c)
    if p.returncode != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + p.stderr)
    out = p.stdout
walls.sort()
cpus.sort()
print("%.3f %.3f" % (walls[len(walls) // 2], cpus[len(cpus) // 2]))
print(out.replace("\n", " "))
PY
}

printf '| game | strategy | ties | route | total | worst | wall (s) | cpu (s) |\n'
printf '|---|---|---|---|---|---|---|---|\n'
status=0
for case in "${cases[@]}"; do
  IFS='|' read -r game strategy ties route want <<<"$case"
  { read -r t c; read -r json; } < <(timed "${pin[@]}" "$bin" game analyze "$game" \
    --strategy "$strategy" --ties "$ties" --route "$route" --json)
  read -r total worst < <(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(d["total"], d["worst"])' <<<"$json")
  mark=""
  if [[ -n $want && $total != "$want" ]]; then mark=" (expected $want!)"; status=1; fi
  printf '| %s | %s | %s | %s | %s%s | %s | %s | %s |\n' \
    "$game" "$strategy" "$ties" "$route" "$total" "$mark" "$worst" "$t" "$c"
done

echo
printf '| deduction | engine | codes left | wall (s) | cpu (s) |\n'
printf '|---|---|---|---|---|\n'
history=models/games/mastermind-8x8.history
{ read -r t c; read -r json; } < <(timed "${pin[@]}" "$bin" game deduce mastermind:8x8 "$history" --json)
count=$(python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["count"])' <<<"$json")
mark=""
if [[ $count != 1726 ]]; then mark=" (expected 1726!)"; status=1; fi
printf '| mastermind:8x8, %s | sat | %s%s | %s | %s |\n' "$history" "$count" "$mark" "$t" "$c"
exit $status
