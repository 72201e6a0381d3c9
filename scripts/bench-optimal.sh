#!/usr/bin/env bash
# Benchmark of `checkmate game optimal` (release build): one table row per
# case with game, objective, proven value, median search time (the
# command's own `time`: search, tree and replay check), median wall time
# of the whole process (table building included), nodes and peak memory
# (max RSS) over RUNS runs. Values are checked against the
# published references where they exist; a mismatch fails the script.
#
# A second table compares spec files (written by `checkmate game spec`)
# with and without symmetry reduction (`--no-reduce`) against the native
# built-in game; a run past SPEC_TIMEOUT seconds is shown as a timeout.
#
# usage: scripts/bench-optimal.sh [--quick] [--stretch] [--tests] [--spec-only]
#   --quick      skip mastermind:4x7 (the one case that takes tens of seconds)
#   --stretch    add mastermind:4x8 and bulls-cows:4x10 (minutes, GBs)
#   --tests      also run the #[ignore]d heavy reference tests in release
#   --spec-only  only the spec-file table
# env: RUNS (default 3; cases over 20 s run once), CHECKMATE (binary),
#      SPEC_TIMEOUT (default 600)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0; stretch=0; tests=0; spec_only=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --spec-only) spec_only=1 ;;
    --stretch) stretch=1 ;;
    --tests) tests=1 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
RUNS=${RUNS:-3}
SPEC_TIMEOUT=${SPEC_TIMEOUT:-600}

cargo build --release --quiet
bin=${CHECKMATE:-target/release/checkmate}
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }

# game | extra flags | expected value (empty: no published reference)
cases=(
  "mastermind:2x2||8" "mastermind:2x3||21" "mastermind:2x4||45" "mastermind:2x5||81"
  "mastermind:2x6||132" "mastermind:2x7||198" "mastermind:2x8||284"
  "mastermind:3x2||18" "mastermind:3x3||73" "mastermind:3x4||206" "mastermind:3x5||451"
  "mastermind:3x6||854" "mastermind:3x7||1474" "mastermind:3x8||2359"
  "mastermind:4x2||44" "mastermind:4x3||246" "mastermind:4x4||905" "mastermind:4x5||2463"
  "mastermind:4x6||5625"
  "mastermind:4x6|--max-depth 5|5626"
  "mastermind:4x6|--objective worst|5"
  "mastermind:5x2||97" "mastermind:5x3||816" "mastermind:5x4||3954"
  "mastermind:6x2||224" "mastermind:6x3||2649"
  "mastermind:3x10||"
  "coins:12|--objective worst|3" "coins:13|--objective worst|4"
  "coins:12+1|--objective worst|3" "coins:13+1|--objective worst|3"
  "coins:12||"
)
if [[ $quick == 0 ]]; then
  cases+=("mastermind:4x7||11228")
fi
if [[ $stretch == 1 ]]; then
  cases+=("mastermind:4x8||" "bulls-cows:4x10||26274")
fi

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# run_case GAME FLAGS WANT LABEL: one table row (LABEL: extra first
# column, empty for the built-in table). Sets status=1 on a mismatch.
run_case() {
  local game=$1 flags=$2 want=$3 label=$4
  local times=() walls=() mems=() value="" nodes="" objective="" kept="" out json mem wall t
  local limit=()
  [[ -n $label ]] && limit=(timeout "$SPEC_TIMEOUT")
  for ((i = 0; i < RUNS; i++)); do
    if ! out=$( { /usr/bin/time -f 'RSS %M %e' "${limit[@]}" "$bin" game optimal "$game" $flags --json; } 2>&1 ); then
      printf '| %s | %s | %s | timeout (%s s) | | | | | |\n' "$label" "$(basename "$game")" "$flags" "$SPEC_TIMEOUT"
      return
    fi
    json=$(sed '/^RSS /d' <<<"$out")
    read -r mem wall < <(sed -n 's/^RSS //p' <<<"$out")
    mems+=("$mem"); walls+=("$wall")
    read -r value nodes t objective kept < <(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
v = d["worst"] if d["objective"] == "worst" else d["total"]
obj = d["objective"] + (" ≤ %d" % d["max_depth"] if d.get("max_depth") else "")
r = d["reduction"]["root"]
print(v, d["nodes"], d["time"], obj.replace(" ", "_"), "%d/%d" % (r["kept"], r["experiments"]) if r else "-")' <<<"$json")
    times+=("$t")
    # One run is enough for the slow cases.
    if (( $(printf '%.0f' "$t") > 20 )); then break; fi
  done
  local tmed wmed mmed mark=""
  tmed=$(printf '%s\n' "${times[@]}" | median)
  wmed=$(printf '%s\n' "${walls[@]}" | median)
  mmed=$(printf '%s\n' "${mems[@]}" | median)
  if [[ -n $want && $value != "$want" ]]; then mark=" (expected $want!)"; status=1; fi
  local mb
  mb=$(awk -v k="$mmed" 'BEGIN {print k / 1024}')
  if [[ -n $label ]]; then
    printf '| %s | %s | %s | %s%s | %.3f | %.2f | %s | %s | %.0f |\n' "$label" "$(basename "$game")" \
      "${objective//_/ }" "$value" "$mark" "$tmed" "$wmed" "$nodes" "$kept" "$mb"
  else
    printf '| %s | %s | %s%s | %.3f | %.2f | %s | %.0f |\n' "$game" "${objective//_/ }" "$value" "$mark" \
      "$tmed" "$wmed" "$nodes" "$mb"
  fi
}

status=0
if [[ $spec_only == 0 ]]; then
  printf '| game | objective | value | search (s) | wall (s) | nodes | peak memory (MB) |\n'
  printf '|---|---|---|---|---|---|---|\n'
  for case in "${cases[@]}"; do
    IFS='|' read -r game flags want <<<"$case"
    run_case "$game" "$flags" "$want" ""
  done
  echo
fi

# Spec files against the native built-in: native symmetry, the spec
# symmetry (phase 1 of the spec reduction), no symmetry at all.
# game | extra flags | expected value
spec_cases=(
  "mastermind:4x5||2463"
  "mastermind:4x6||5625"
  "coins:12||"
  "coins:12|--objective worst|3"
)
specs=$(mktemp -d)
trap 'rm -rf "$specs"' EXIT
printf '| run | game | objective | value | search (s) | wall (s) | nodes | root kept | peak memory (MB) |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for case in "${spec_cases[@]}"; do
  IFS='|' read -r game flags want <<<"$case"
  file="$specs/${game/:/-}.game"
  "$bin" game spec "$game" >"$file"
  run_case "$game" "$flags" "$want" "native"
  run_case "$file" "$flags" "$want" "spec, reduced"
  run_case "$file" "$flags --no-reduce" "$want" "spec, --no-reduce"
done

if [[ $tests == 1 ]]; then
  cargo test --release --quiet --lib -- --ignored optimal
fi
exit $status
