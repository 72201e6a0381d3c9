#!/usr/bin/env bash
# Boards with no path whatever their numbers (scripts/gen-nopath.py: the
# colours, dead ends, a board cut in two, a one-cell bridge with both
# ends on one side, three parts around one cell; 7x7 to 15x15, every
# variant where the argument applies): `checkmate solve --count 2 --json`
# on each, one run, and one markdown row per board with the answer (every
# board must be `unsat`), wall and CPU seconds and the `why:` line of the
# text answer. A summary line at the end: boards, unsat, over 2 s, the
# slowest. Release build.
#
# Usage: scripts/sweep-nopath.sh [-t TIMEOUT]   (default TIMEOUT=20)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh

limit=20
while (($#)); do
    case "$1" in
        -t) limit=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "sweep-nopath.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

# CHECKMATE_BIN: measure that binary instead (e.g. an older build).
checkmate_setup
python3 scripts/gen-nopath.py "$tmp/boards"

echo "checkmate $bin_label (release); scripts/gen-nopath.py boards;" \
    "solve --count 2; wall and CPU s, one run each; timeout $limit s"
echo
echo "| board | answer | wall (s) | CPU (s) | why |"
echo "|---|---|---:|---:|---|"
boards=0 unsat=0 over=0 slowest=0 slowest_name=
for f in "$tmp"/boards/*.txt; do
    name=$(basename "$f" .txt)
    read -r cpu wall _ status < <(measure "$limit" "$tmp/out" \
        "$bin" solve --count 2 --json --quiet --timeout "$limit" "$f")
    boards=$((boards + 1))
    answer=timeout
    if [[ $status == ok ]] && grep -q '"status"' "$tmp/out"; then
        answer=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$tmp/out")
    fi
    [[ $answer == unsat ]] && unsat=$((unsat + 1))
    awk -v t="$wall" 'BEGIN { exit !(t > 2) }' && over=$((over + 1))
    if awk -v a="$slowest" -v b="$wall" 'BEGIN { exit !(b > a) }'; then
        slowest=$wall slowest_name=$name
    fi
    why=$(timeout "$limit" "$bin" solve --quiet "$f" 2>/dev/null | sed -n 's/^why: //p' || true)
    printf '| %s | %s | %.2f | %.2f | %s |\n' "$name" "$answer" "$wall" "$cpu" "${why:--}"
done
echo
printf '%d boards, %d unsat, %d over 2 s of wall time; slowest %s, %.2f s\n' \
    "$boards" "$unsat" "$over" "$slowest_name" "$slowest"
