#!/usr/bin/env bash
# Per-phase wall times (ms) of `checkmate solve PUZZLE --count 2 --json`
# as printed under CHECKMATE_PHASES=1, median of RUNS runs, one markdown
# row per puzzle: parse, compile, analyse, encode, solve, verify (the bmc
# engine's check of its traces; each summed over the models `solve`
# tried), and the process's total CPU time.
#
# Usage: scripts/bench-phases.sh [-n RUNS] [-b BINARY] PUZZLE...
#        (defaults: RUNS=5, BINARY=target/release/checkmate)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5
bin=target/release/checkmate
while (($#)); do
    case "$1" in
        -n) runs=$2; shift 2 ;;
        -b) bin=$2; shift 2 ;;
        *) break ;;
    esac
done
source scripts/bench-lib.sh
echo "| puzzle | parse | compile | analyse | encode | solve | verify | CPU total |"
echo "|---|---|---|---|---|---|---|---|"
for puzzle in "$@"; do
    tmp=$(mktemp -d)
    for ((r = 0; r < runs; r++)); do
        CHECKMATE_PHASES=1 measure 60 "$tmp/err" "$bin" solve "$puzzle" --count 2 --json >"$tmp/time"
        # Summed over the models `solve` tried (see grid::strengthen::sat_models).
        awk '/^phase parse:/ { t["parse"] += $3 }
             /^phase compile:/ { t["compile"] += $3 }
             /bmc: analyse/ { for (i = 1; i < NF; i++)
                                  if ($i ~ /^(analyse|encode|solve|verify)$/)
                                      t[$i] += $(i + 1) }
             END { for (p in t) print t[p] > "'"$tmp"'/" p }' "$tmp/err"
        for p in parse compile analyse encode solve verify; do
            cat "$tmp/$p" >>"$tmp/$p.all" 2>/dev/null || echo nan >>"$tmp/$p.all"
        done
        awk '{ printf "%.2f\n", $1 * 1000 }' "$tmp/time" >>"$tmp/cpu.all"
    done
    row="| $(basename "$puzzle" .txt)"
    for p in parse compile analyse encode solve verify cpu; do
        row+=" | $(median <"$tmp/$p.all")"
    done
    echo "$row |"
    rm -rf "$tmp"
done
