#!/usr/bin/env bash
# Times NuSMV on checkmate's models of grid puzzles and prints a markdown
# table: BDD (`NuSMV model.smv`) and SAT-based BMC at the solution length
# (`NuSMV -bmc -bmc_length K model.smv`), median of N runs, each run
# killed after a timeout. With --hand, waypoint puzzles are also timed
# with the straightforward hand-written model of scripts/hand-model.py
# (the yardstick checkmate's model must not be slower than).
#
# Times are CPU seconds (user + system) of the NuSMV process: the machine
# is shared, and CPU time is what contention disturbs least. A run that
# hits the timeout ends that measurement and is shown as ">T".
#
# Usage: scripts/bench-nusmv.sh [-n RUNS] [-t SECONDS] [--no-bmc] [--hand]
#                               [PUZZLE...]
#        (default: -n 3 -t 120, every models/grid/*.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh

runs=3
limit=120
bmc=1
hand=0
files=()
while (($#)); do
    case "$1" in
        -n) runs=$2; shift 2 ;;
        -t) limit=$2; shift 2 ;;
        --no-bmc) bmc=0; shift ;;
        --hand) hand=1; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) files+=("$1"); shift ;;
    esac
done
((${#files[@]})) || files=(models/grid/*.txt)

nusmv=${NUSMV:-$(command -v NuSMV || true)}
[[ -x "$nusmv" ]] || { echo "bench-nusmv.sh: NuSMV not found (scripts/install-nusmv.sh)" >&2; exit 1; }

cargo build --release -q
bin=target/release/checkmate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# time_one MODEL ARGS...: prints "CPU-seconds verdict" or ">T timeout".
time_one() {
    local model=$1; shift
    local out="$tmp/out" cpu wall kb status
    read -r cpu wall kb status < <(measure "$limit" "$out" "$nusmv" "$@" "$model")
    if [[ $status == timeout ]]; then
        echo ">$limit timeout"
    else
        printf '%.2f %s\n' "$cpu" "$(nusmv_verdict "$out")"
    fi
}

# median_of MODEL ARGS...: runs time_one $runs times, prints "median verdict".
median_of() {
    local times=() verdict=""
    for ((i = 0; i < runs; i++)); do
        read -r secs v < <(time_one "$@")
        times+=("${secs#>}")
        verdict=$v
        [[ $v == timeout ]] && break
    done
    local med
    med=$(printf '%s\n' "${times[@]}" | median)
    [[ $verdict == timeout ]] && med=">$limit"
    echo "$med $verdict"
}

version=$(nusmv_version "$nusmv" || true)
echo "$version; median of $runs runs; CPU seconds; timeout ${limit} s"
echo
header="| puzzle | open cells | verdict | BDD (s) |"
rule="|---|---:|---|---:|"
((bmc)) && { header+=" BMC at K (s) |"; rule+="---:|"; }
((hand)) && { header+=" hand model BDD (s) |"; rule+="---:|"; }
echo "$header"
echo "$rule"
for f in "${files[@]}"; do
    name=$(basename "$f" .txt)
    "$bin" smv "$f" -o "$tmp/model.smv"
    k=$(grep -m1 -o 'bmc_length [0-9]*' "$tmp/model.smv" | cut -d' ' -f2)
    read -r bdd verdict < <(median_of "$tmp/model.smv")
    cols=" $bdd |"
    if ((bmc)); then
        read -r t v < <(median_of "$tmp/model.smv" -bmc -bmc_length "$k")
        [[ $verdict == timeout ]] && verdict=$v
        cols+=" $t |"
    fi
    if ((hand)); then
        if grep -q '^variant: *waypoint' "$f"; then
            python3 scripts/hand-model.py "$f" >"$tmp/hand.smv"
            read -r t _ < <(median_of "$tmp/hand.smv")
            cols+=" $t |"
        else
            cols+=" |"
        fi
    fi
    echo "| $name | $((k + 1)) | $verdict |$cols"
done
