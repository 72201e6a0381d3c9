#!/usr/bin/env bash
# Fresh puzzles the engine has never been tuned on: generates one puzzle
# per seed with scripts/gen-grid.py (default: waypoint 15x15, 18 blocked
# cells, the generator's default share of numbers) and times `checkmate
# solve --count 2 --json` on each (first solution and uniqueness, the
# issue-3 measure). One markdown table: seed, open cells, numbers, answer,
# CPU and wall seconds (medians of RUNS runs; ">T" when killed at TIMEOUT
# seconds, not repeated), then the medians over all puzzles (a timeout
# counts as T) and how many finished within 2 s. Wall time is what a user
# waits: on a hard puzzle `solve` races two searches on two cores (see
# `--jobs`), so its CPU time can be twice its wall time; on a loaded
# machine wall times are noisier. Release build.
#
# --unique: generate with gen-grid.py --unique (more of the hidden path
# revealed until one solution is left, checked by the measured binary
# with the same timeout); on open boards the random reveal order needs
# most of the cells (~180-215 of 225 numbers), so these are easy.
#
# Usage: scripts/bench-fresh.sh [-n RUNS] [-t TIMEOUT] [--seeds 1-12]
#            [--variant waypoint] [--size 15x15] [--blocked 18]
#            [--reveal F] [--unique] [--keep DIR] [-- EXTRA SOLVE ARGS...]
#        (defaults: RUNS=1, TIMEOUT=20; --keep writes the puzzles to DIR;
#        --reveal: gen-grid.py's share of the path shown as numbers)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh

runs=1
limit=20
seeds=1-12
variant=waypoint
size=15x15
blocked=18
keep=""
unique=()
reveal=()
extra=()
while (($#)); do
    case "$1" in
        -n) runs=$2; shift 2 ;;
        -t) limit=$2; shift 2 ;;
        --seeds) seeds=$2; shift 2 ;;
        --variant) variant=$2; shift 2 ;;
        --size) size=$2; shift 2 ;;
        --blocked) blocked=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --unique) unique=(--unique); shift ;;
        --reveal) reveal=(--reveal "$2"); shift 2 ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "bench-fresh.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

# CHECKMATE_BIN: measure that binary instead (e.g. an older build).
checkmate_setup
dir=${keep:-$tmp}
mkdir -p "$dir"

[[ ${#unique[@]} -eq 0 ]] || unique+=(--checkmate "$bin" --timeout "$limit")
echo "checkmate $bin_label (release); $variant $size, $blocked blocked${unique:+, unique}${reveal:+, reveal ${reveal[1]}};" \
    "solve --count 2 ${extra[*]}; CPU and wall s, medians of $runs; timeout $limit s"
echo
echo "| seed | open | numbers | answer | CPU (s) | wall (s) |"
echo "|---:|---:|---:|---|---:|---:|"
all=()
all_wall=()
within=0
within_wall=0
count=0
for seed in $(seq "${seeds%-*}" "${seeds#*-}"); do
    f=$dir/$variant-$size-b$blocked${reveal:+-r${reveal[1]}}-s$seed.txt
    python3 scripts/gen-grid.py "$variant" "${size%x*}" "${size#*x}" \
        --blocked "$blocked" --seed "$seed" "${reveal[@]}" "${unique[@]}" >"$f"
    open=$(grep -v '^#' "$f" | grep -v ':' | tr ' ' '\n' | grep -c '^[.0-9]')
    numbers=$(grep -v '^#' "$f" | grep -v ':' | tr ' ' '\n' | grep -c '^[0-9]')
    cpus=()
    walls=()
    t=""
    for ((i = 0; i < runs; i++)); do
        read -r cpu wall _ status < <(measure "$limit" "$tmp/out" \
            "$bin" solve --count 2 --json --quiet --timeout "$limit" "${extra[@]}" "$f")
        if [[ $status != ok ]] || ! grep -q '"unique"' "$tmp/out"; then
            t=">$limit"
            break
        fi
        cpus+=("$cpu")
        walls+=("$wall")
    done
    if [[ -z $t ]]; then
        t=$(printf '%s\n' "${cpus[@]}" | median)
        answer=$(solve_answer "$tmp/out")
        all+=("$t")
        w=$(printf '%s\n' "${walls[@]}" | median)
        all_wall+=("$w")
        awk -v t="$t" 'BEGIN { exit !(t <= 2) }' && within=$((within + 1))
        awk -v t="$w" 'BEGIN { exit !(t <= 2) }' && within_wall=$((within_wall + 1))
        t=$(printf '%.2f' "$t")
        w=$(printf '%.2f' "$w")
    else
        answer=timeout
        all+=("$limit")
        all_wall+=("$limit")
        w=$t
    fi
    count=$((count + 1))
    echo "| $seed | $open | $numbers | $answer | $t | $w |"
done
echo
echo "median CPU $(printf '%s\n' "${all[@]}" | median) s, wall $(printf '%s\n' "${all_wall[@]}" | median) s;" \
    "within 2 s: $within_wall of $count by wall time, $within by CPU time"
