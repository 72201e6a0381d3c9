#!/usr/bin/env bash
# Writes `checkmate cnf` of every grid puzzle (models/bench/ and
# models/grid/ by default) into DIR, one PUZZLE.cnf per file, and with
# --compare OLD_DIR reports every puzzle whose CNF differs from the one in
# OLD_DIR. For refactors that must not change the encoding: snapshot on
# the old build, snapshot on the new one with --compare.
#
# Usage: scripts/cnf-snapshot.sh [--bin PATH] [--compare OLD_DIR] DIR [PUZZLE...]
#        (default binary: target/release/checkmate; build it first)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/checkmate
old=""
while (($#)); do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --compare) old=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) echo "cnf-snapshot.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
(($#)) || { echo "cnf-snapshot.sh: no output directory (see --help)" >&2; exit 2; }
dir=$1; shift
files=("$@")
((${#files[@]})) || files=(models/bench/*.txt models/grid/*.txt)
mkdir -p "$dir"
status=0
for f in "${files[@]}"; do
    name=$(basename "$(dirname "$f")")-$(basename "$f" .txt)
    out="$dir/$name.cnf"
    if ! "$bin" cnf "$f" -o "$out" 2>"$dir/$name.err"; then
        : # an error (e.g. no solution bound) is part of the snapshot
    fi
    if [[ -n $old ]]; then
        if ! cmp -s "$out" "$old/$name.cnf" 2>/dev/null || ! cmp -s "$dir/$name.err" "$old/$name.err"; then
            echo "DIFFERS: $f"
            status=1
        fi
    fi
done
if [[ -n $old ]]; then
    ((status)) || echo "all ${#files[@]} CNFs identical"
fi
exit $status
