#!/usr/bin/env bash
# The grid benchmark of issue 3: one markdown table over the puzzles of
# models/bench/ with, per puzzle, open cells, bound, the CNF's variables and
# clauses (`checkmate cnf`; for a waypoint puzzle that is its successor
# model with the ranks written out, which the engine itself leaves out of
# its CNF, so it solves a smaller one), the built-in engine's time to the first
# solution (`checkmate solve`) and to decide uniqueness (`checkmate solve
# --count 2`) with its peak memory (one more run, through GNU time when
# /usr/bin/time is there: see peak_kb), and NuSMV's time on checkmate's own SMV
# model of the same puzzle (`checkmate smv`): BDD (`NuSMV model.smv`) and
# SAT-based BMC at the solution length (`NuSMV -bmc -bmc_length K`), with
# the ratios NuSMV / checkmate (time to first solution: both find one).
#
# Times are CPU seconds (user + system) of the measured process, median of
# RUNS runs (NUSMV_RUNS for NuSMV, default RUNS): the machine is shared, and CPU time is what contention disturbs
# least. The first-solution runs alternate with NuSMV BDD's (see
# `alternate`), so the BDD ratio compares runs made in the same spells.
# Beside them, the wall time of `--count 2` (what a user waits: on
# a hard puzzle `solve` races two seeded searches on two cores, `--jobs`,
# so its CPU time can be up to twice its wall time; puzzles answered
# within a quarter of a second never race). Every run is killed after TIMEOUT seconds; a run that hits it is
# shown as ">T" and not repeated. Release build. The answer column is
# checkmate's (unique, 2+ = at least two solutions, unsat); an answer that
# disagrees with the file's label, or a NuSMV verdict that disagrees with
# it, is flagged.
#
# --fresh instead runs the large-board tests of tests/grid_fresh.rs
# (puzzles generated on the spot, 12x12 to 15x15 and 3x50) in release mode.
#
# Usage: scripts/bench-grid.sh [-n RUNS] [-t TIMEOUT] [--sizes 6x6,9x9]
#            [--variants numbrix,hidato] [--no-nusmv] [--no-nusmv-bdd]
#            [--no-nusmv-bmc] [PUZZLE...]
#        scripts/bench-grid.sh --fresh
#        (defaults: RUNS=3, TIMEOUT=60 from the environment; every
#        models/bench/*.txt; sizes and variants filter by file name)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh

runs=${RUNS:-3}
nusmv_runs=${NUSMV_RUNS:-}
limit=${TIMEOUT:-60}
sizes=""
variants=""
nusmv_bdd=1
nusmv_bmc=1
files=()
while (($#)); do
    case "$1" in
        -n) runs=$2; shift 2 ;;
        -t) limit=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --variants) variants=$2; shift 2 ;;
        --no-nusmv) nusmv_bdd=0; nusmv_bmc=0; shift ;;
        --no-nusmv-bmc) nusmv_bmc=0; shift ;;
        --no-nusmv-bdd) nusmv_bdd=0; shift ;;
        --fresh)
            exec nice cargo test --release --test grid_fresh -- --ignored --nocapture ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) echo "bench-grid.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) files+=("$1"); shift ;;
    esac
done
((${#files[@]})) || files=(models/bench/*.txt)
nusmv_runs=${nusmv_runs:-$runs}

# Filter by size/variant (from the file name: VARIANT-RxC-...), then order
# by variant, board size, name.
selected=()
for f in "${files[@]}"; do
    base=$(basename "$f" .txt)
    variant=${base%%-*}
    size=$(grep -o -m1 '[0-9]\+x[0-9]\+' <<<"$base" || true)
    [[ -z $variants || ",$variants," == *",$variant,"* ]] || continue
    [[ -z $sizes || ",$sizes," == *",$size,"* ]] || continue
    selected+=("$variant ${size%x*} ${size#*x} $f")
done
((${#selected[@]})) || { echo "bench-grid.sh: no puzzle selected" >&2; exit 1; }
mapfile -t files < <(printf '%s\n' "${selected[@]}" |
    awk '{ print $1, $2 * $3, $4 }' | sort -k1,1 -k2,2n -k3,3 | cut -d' ' -f3)

nusmv=${NUSMV:-/usr/local/bin/NuSMV}
if ((nusmv_bdd + nusmv_bmc)) && [[ ! -x $nusmv ]]; then
    echo "bench-grid.sh: NuSMV not found at $nusmv (scripts/install-nusmv.sh, or --no-nusmv)" >&2
    exit 1
fi

# CHECKMATE_BIN: measure that binary instead (e.g. an older build).
checkmate_setup

# timed LABEL CMD...: runs CMD up to $n times (stops after a timeout);
# sets T (median CPU seconds, or ">limit"), W (median wall seconds, or
# ">limit"), KB (largest peak memory), OUT
# (the output of the last run) and ST (its status: ok, error or timeout).
timed() {
    local label=$1; shift
    local cpus=() walls=() cpu wall kb status
    KB=0
    OUT=$tmp/$label.out
    for ((i = 0; i < n; i++)); do
        read -r cpu wall kb status < <(measure "$limit" "$OUT" "$@")
        ST=$status
        ((kb > KB)) && KB=$kb
        if [[ $status == timeout ]]; then
            T=">$limit"
            W=">$limit"
            return
        fi
        cpus+=("$cpu")
        walls+=("$wall")
    done
    T=$(printf '%s\n' "${cpus[@]}" | median)
    W=$(printf '%s\n' "${walls[@]}" | median)
}

# alternate LABEL_A LABEL_B: `timed` for two commands, "${cmd_a[@]}"
# ($n runs) and "${cmd_b[@]}" ($n_b runs), their runs alternated (a b a b
# ... a a): sets T_A, ST_A, OUT_A and T_B, ST_B, OUT_B as `timed` sets
# T, ST and OUT; a command that hits the timeout is not run again.
# Why: this machine drifts between fast and slow spells of seconds to
# minutes (NuSMV BDD on numbrix-9x9-s1: 0.20-0.37 s CPU within one hour,
# checkmate 2.0-3.0 ms), and the two tools measured in a block each could
# land in different spells: the 9x9 ratios of one puzzle moved 89-156x
# from one block pair to the next. Alternated, both see the same spells
# (the ratio still moves with them: samples of 5 pairs on numbrix-9x9-s1
# gave 96-175x, so take NUSMV_RUNS = RUNS where NuSMV is quick), and
# neither runs warm on the heels of its own last run (checkmate runs
# after NuSMV's 200 MB of BDDs have gone through the caches).
alternate() {
    local as=() bs=() cpu wall kb status
    OUT_A=$tmp/$1.out
    OUT_B=$tmp/$2.out
    T_A= T_B= ST_A= ST_B=
    for ((i = 0; i < n || i < n_b; i++)); do
        if ((i < n)) && [[ -z $T_A ]]; then
            read -r cpu wall kb status < <(measure "$limit" "$OUT_A" "${cmd_a[@]}")
            ST_A=$status
            [[ $status == timeout ]] && T_A=">$limit" || as+=("$cpu")
        fi
        if ((i < n_b)) && [[ -z $T_B ]]; then
            read -r cpu wall kb status < <(measure "$limit" "$OUT_B" "${cmd_b[@]}")
            ST_B=$status
            [[ $status == timeout ]] && T_B=">$limit" || bs+=("$cpu")
        fi
    done
    [[ -n $T_A ]] || T_A=$(printf '%s\n' "${as[@]}" | median)
    [[ -n $T_B ]] || T_B=$(printf '%s\n' "${bs[@]}" | median)
}

# ratio A B: "A / B" as "123×" (">123×" when A timed out).
ratio() {
    local a=${1#>} b=$2 more=""
    [[ $1 == ">"* ]] && more=">"
    [[ $b == ">"* || $a == "-" ]] && { echo "-"; return; }
    awk -v a="$a" -v b="$b" -v m="$more" 'BEGIN {
        if (b < 0.0005) b = 0.0005
        r = a / b
        printf "%s%s×\n", m, (r >= 10 ? sprintf("%d", r) : sprintf("%.1f", r)) }'
}

# fmt SECONDS: 3 decimals (or the ">T" marker).
fmt() { [[ $1 == ">"* || $1 == "-" ]] && echo "$1" || printf '%.3f' "$1"; }

# The answer from `solve [--count 2] --json`: unique, 2+, solved (not
# counted), unsat, unknown or error.
answer() {
    python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("error"); sys.exit()
if d["status"] != "solved": print(d["status"])
elif d.get("unique") is True: print("unique")
elif d.get("unique") is False: print("2+")
elif "unique" not in d: print("solved")
else: print("unknown")' "$1"
}

version=$(nusmv_version "$nusmv" || echo "NuSMV: not run")
echo "checkmate $bin_label (release, batsat); $version;"
echo "CPU seconds, median of $runs runs ($nusmv_runs for NuSMV); timeout ${limit} s; ratios = NuSMV / checkmate time to first solution (BDD runs alternated with checkmate's)"
echo
header="| puzzle | open | bound | vars | clauses | answer | first (s) | unique (s) | unique wall (s) | peak MB |"
rule="|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
((nusmv_bdd)) && { header+=" NuSMV BDD (s) | BDD/bmc |"; rule+="---:|---:|"; }
((nusmv_bmc)) && { header+=" NuSMV BMC (s) | BMC/bmc |"; rule+="---:|---:|"; }
echo "$header"
echo "$rule"
for f in "${files[@]}"; do
    name=$(basename "$f" .txt)
    "$bin" cnf "$f" -o "$tmp/p.cnf"
    read -r vars clauses < <(grep -m1 '^p cnf' "$tmp/p.cnf" | awk '{ print $3, $4 }')
    rm -f "$tmp/p.cnf"
    "$bin" smv "$f" -o "$tmp/model.smv"
    k=$(grep -m1 -o 'bmc_length [0-9]*' "$tmp/model.smv" | cut -d' ' -f2)

    n=$runs
    cmd_a=("$bin" solve --json --quiet --timeout "$limit" "$f")
    if ((nusmv_bdd)); then
        # The first solution side by side with NuSMV BDD (`alternate`).
        cmd_b=("$nusmv" "$tmp/model.smv")
        n_b=$nusmv_runs
        alternate first nusmv-bdd
        bdd_t=$T_B bdd_st=$ST_B bdd_out=$OUT_B
        T=$T_A OUT=$OUT_A
    else
        timed first "${cmd_a[@]}"
    fi
    first=$T
    [[ $(answer "$OUT") == @(unknown|error) ]] && first=">$limit"
    timed unique "$bin" solve --count 2 --json --quiet --timeout "$limit" "$f"
    unique=$T
    unique_wall=$W
    verdict=$(answer "$OUT")
    # Killed at the limit (before its own --timeout answered): no output.
    [[ $ST == timeout ]] && verdict=timeout
    [[ $verdict == @(unknown|error|timeout) ]] && unique=">$limit" unique_wall=">$limit"
    # The file's own label (scripts/gen-grid.py --unique/--ambiguous/--unsat).
    label=$(grep -m1 -o '^# \(unique\|ambiguous\|unsat\):' "$f" | tr -d '#: ' || true)
    [[ $label == ambiguous ]] && label=2+
    if [[ -n $label && $verdict == @(unique|2+|unsat) && $verdict != "$label" ]]; then
        verdict+=" (LABEL SAYS $label)"
    fi
    kb=$(peak_kb "$limit" "$bin" solve --count 2 --json --quiet --timeout "$limit" "$f")
    [[ -n $kb ]] && KB=$kb
    mb=$(awk -v kb="$KB" 'BEGIN { printf "%.0f", kb / 1024 }')
    row="| $name | $((k + 1)) | $k | $vars | $clauses | $verdict | $(fmt "$first") | $(fmt "$unique") | $(fmt "$unique_wall") | $mb |"

    for engine in bdd bmc; do
        [[ $engine == bdd ]] && ((!nusmv_bdd)) && continue
        [[ $engine == bmc ]] && ((!nusmv_bmc)) && continue
        args=()
        [[ $engine == bmc ]] && args=(-bmc -bmc_length "$k")
        if [[ $engine == bdd ]]; then
            T=$bdd_t ST=$bdd_st OUT=$bdd_out
        else
            n=$nusmv_runs
            timed "nusmv-$engine" "$nusmv" "${args[@]}" "$tmp/model.smv"
        fi
        cell=$(fmt "$T")
        if [[ $ST == error ]]; then
            # NuSMV 2.5.4's BMC dies with SIGSEGV on the larger hidato models.
            row+=" crashed after $cell | - |"
            continue
        elif [[ $T != ">"* ]]; then
            v=$(nusmv_verdict "$OUT")
            want=solved
            [[ $verdict == unsat ]] && want=unsat
            [[ $v != "$want" && $verdict != unknown ]] && cell+=" MISMATCH: $v"
        fi
        row+=" $cell | $(ratio "$T" "$first") |"
    done
    echo "$row"
done
