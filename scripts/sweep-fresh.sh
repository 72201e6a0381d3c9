#!/usr/bin/env bash
# A sweep over the puzzle family with the generator's defaults: for each
# variant, board size and share of blocked cells (0 and 10%), generates
# one puzzle per seed with scripts/gen-grid.py (its default share of
# numbers) and times `checkmate solve --count 2 --json` on each, one run.
# One markdown row per (variant, size, blocked): the answers (unique,
# 2+, unsat, timeout; every answer the binary prints has passed its own
# checks), the slowest wall and CPU times and how many finished within
# 2 s of wall time (what a user waits: on a hard puzzle `solve` races two
# searches on two cores, see `--jobs`, so CPU can be twice the wall).
# Where bench-fresh.sh looks closely at one kind of board, this looks
# for the kinds that miss the target. Release build.
#
# Usage: scripts/sweep-fresh.sh [-t TIMEOUT] [--seeds 1-3]
#            [--sizes 3x3,5x5,...] [--variants waypoint,numbrix,hidato]
#        (defaults: TIMEOUT=20; sizes 3x3 5x5 7x7 10x10 13x13 15x15
#        15x12 3x50 4x40 2x60)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh

limit=20
seeds=1-3
sizes=3x3,5x5,7x7,10x10,13x13,15x15,15x12,3x50,4x40,2x60
variants=waypoint,numbrix,hidato
while (($#)); do
    case "$1" in
        -t) limit=$2; shift 2 ;;
        --seeds) seeds=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --variants) variants=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "sweep-fresh.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

# CHECKMATE_BIN: measure that binary instead (e.g. an older build).
checkmate_setup

echo "checkmate $bin_label (release); gen-grid.py defaults, seeds $seeds;" \
    "solve --count 2; wall and CPU s, one run each; timeout $limit s"
echo
echo "| variant | size | blocked | puzzles | unique | 2+ | unsat | timeout | slowest wall (s) | slowest CPU (s) | within 2 s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for variant in ${variants//,/ }; do
    for size in ${sizes//,/ }; do
        rows=${size%x*} cols=${size#*x}
        for blocked in $(printf '%s\n' 0 $((rows * cols / 10)) | sort -un); do
            declare -A n=([unique]=0 [2+]=0 [unsat]=0 [timeout]=0)
            puzzles=0 within=0 slowest=0 slowest_cpu=0
            for seed in $(seq "${seeds%-*}" "${seeds#*-}"); do
                f=$tmp/p.txt
                python3 scripts/gen-grid.py "$variant" "$rows" "$cols" \
                    --blocked "$blocked" --seed "$seed" >"$f"
                read -r cpu wall _ status < <(measure "$limit" "$tmp/out" \
                    "$bin" solve --count 2 --json --quiet --timeout "$limit" "$f")
                puzzles=$((puzzles + 1))
                if [[ $status != ok ]] || ! grep -q '"unique"' "$tmp/out"; then
                    n[timeout]=$((n[timeout] + 1))
                    slowest=">$limit" slowest_cpu=">$limit"
                    continue
                fi
                answer=$(solve_answer "$tmp/out")
                n[$answer]=$((n[$answer] + 1))
                awk -v t="$wall" 'BEGIN { exit !(t <= 2) }' && within=$((within + 1))
                [[ $slowest == ">"* ]] || slowest=$(awk -v a="$slowest" -v b="$wall" 'BEGIN { print (b > a ? b : a) }')
                [[ $slowest_cpu == ">"* ]] || slowest_cpu=$(awk -v a="$slowest_cpu" -v b="$cpu" 'BEGIN { print (b > a ? b : a) }')
            done
            [[ $slowest == ">"* ]] || slowest=$(printf '%.2f' "$slowest")
            [[ $slowest_cpu == ">"* ]] || slowest_cpu=$(printf '%.2f' "$slowest_cpu")
            echo "| $variant | $size | $blocked | $puzzles | ${n[unique]} | ${n[2+]} | ${n[unsat]} | ${n[timeout]} | $slowest | $slowest_cpu | $within |"
            unset n
        done
    done
done
