#!/usr/bin/env bash
# A sweep over the boards a user may type: random blocked cells and a few
# random numbers (scripts/gen-random-board.py), on long thin boards by
# default, where a search has the most room. Unlike the generator of
# sweep-fresh.sh, nothing here is placed on a hidden path: with many
# numbers a board almost never has a path (and `solve` says `unsat` at
# once), with two to four it may have none, one or thousands, and telling
# which is the hardest work the SAT searches get. For each variant, size,
# count of blocked cells and of numbers, one board per seed and one run of
# `checkmate solve --count 2 --json` each. One markdown row per
# combination: the answers (unique, 2+, unsat, unknown at the timeout;
# every answer the binary prints has passed its own checks), the slowest
# wall and CPU times and how many finished within 2 s of wall time. Then
# the boards over 2 s, each with the generator arguments that make it
# again. Release build.
#
# Usage: scripts/sweep-random.sh [-t TIMEOUT] [--seeds 1-3]
#            [--sizes 3x50,4x24,...] [--variants hidato,waypoint,numbrix]
#            [--blocked 0,3,7] [--numbers 2,4]
#        (defaults: TIMEOUT=10; sizes 3x50 4x24 3x40 4x30 5x20)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh

limit=10
seeds=1-3
sizes=3x50,4x24,3x40,4x30,5x20
variants=hidato,waypoint,numbrix
blocked_list=0,3,7
numbers_list=2,4
while (($#)); do
    case "$1" in
        -t) limit=$2; shift 2 ;;
        --seeds) seeds=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --variants) variants=$2; shift 2 ;;
        --blocked) blocked_list=$2; shift 2 ;;
        --numbers) numbers_list=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "sweep-random.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

# CHECKMATE_BIN: measure that binary instead (e.g. an older build).
checkmate_setup

echo "checkmate $bin_label (release); gen-random-board.py, seeds $seeds;" \
    "solve --count 2; wall and CPU s, one run each; timeout $limit s"
echo
echo "| variant | size | blocked | numbers | boards | unique | 2+ | unsat | unknown | slowest wall (s) | slowest CPU (s) | within 2 s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
slow=()
total=0 total_within=0
for variant in ${variants//,/ }; do
    for size in ${sizes//,/ }; do
        rows=${size%x*} cols=${size#*x}
        for blocked in ${blocked_list//,/ }; do
            for numbers in ${numbers_list//,/ }; do
                declare -A n=([unique]=0 [2+]=0 [unsat]=0 [unknown]=0)
                boards=0 within=0 slowest=0 slowest_cpu=0
                for seed in $(seq "${seeds%-*}" "${seeds#*-}"); do
                    args="$variant $rows $cols $blocked $numbers $seed"
                    f=$tmp/p.txt
                    # The generator refuses impossible counts (more
                    # blocked cells or numbers than the board has).
                    # shellcheck disable=SC2086
                    python3 scripts/gen-random-board.py $args >"$f" 2>/dev/null || continue
                    read -r cpu wall _ status < <(measure "$limit" "$tmp/out" \
                        "$bin" solve --count 2 --json --quiet --timeout "$limit" "$f")
                    boards=$((boards + 1))
                    if [[ $status != ok ]] || ! grep -q '"unique"' "$tmp/out"; then
                        n[unknown]=$((n[unknown] + 1))
                        slowest=">$limit" slowest_cpu=">$limit"
                        slow+=("| $args | unknown | >$limit | >$limit |")
                        continue
                    fi
                    answer=$(solve_answer "$tmp/out")
                    n[$answer]=$((n[$answer] + 1))
                    if awk -v t="$wall" 'BEGIN { exit !(t <= 2) }'; then
                        within=$((within + 1))
                    else
                        slow+=("| $args | $answer | $(printf '%.2f' "$wall") | $(printf '%.2f' "$cpu") |")
                    fi
                    [[ $slowest == ">"* ]] || slowest=$(awk -v a="$slowest" -v b="$wall" 'BEGIN { print (b > a ? b : a) }')
                    [[ $slowest_cpu == ">"* ]] || slowest_cpu=$(awk -v a="$slowest_cpu" -v b="$cpu" 'BEGIN { print (b > a ? b : a) }')
                done
                ((boards)) || { unset n; continue; }
                total=$((total + boards)) total_within=$((total_within + within))
                [[ $slowest == ">"* ]] || slowest=$(printf '%.2f' "$slowest")
                [[ $slowest_cpu == ">"* ]] || slowest_cpu=$(printf '%.2f' "$slowest_cpu")
                echo "| $variant | $size | $blocked | $numbers | $boards | ${n[unique]} | ${n[2+]} | ${n[unsat]} | ${n[unknown]} | $slowest | $slowest_cpu | $within |"
                unset n
            done
        done
    done
done
echo
echo "$total boards, $total_within within 2 s of wall time."
if ((${#slow[@]})); then
    echo
    echo "Over 2 s (\`scripts/gen-random-board.py ARGS\` makes the board again):"
    echo
    echo "| args | answer | wall (s) | CPU (s) |"
    echo "|---|---|---:|---:|"
    printf '%s\n' "${slow[@]}"
fi
