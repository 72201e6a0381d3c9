#!/usr/bin/env bash
# Symmetry reduction benchmark: for each game, the hybrid engine's
# max-models analysis with reduction (phase 1 + phase 2), and without
# (the explicit table of every experiment, where one fits), plus the
# experiments generated/distinct/kept per depth of the tree.
#
# Usage: [TIMEOUT=s] scripts/bench-reduce.sh [RUNS]   (median of RUNS runs, default 3;
# runs over 60 s are not repeated). Release build; spec files are written
# with `checkmate game spec`, so the spec route is measured, not the
# native one (shown for comparison where it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
cargo build --release -q --bin checkmate
cargo test --release -q --test bench_reduce --no-run 2>/dev/null
C=target/release/checkmate
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
# The driver is an ignored test that reads its arguments from BENCH_REDUCE;
# its binary is copied so that edits to the sources during a run cannot
# trigger a rebuild inside a timed run.
cp "$(ls -t target/release/deps/bench_reduce-* | grep -v '\.d$' | head -1)" "$DIR/bench_reduce"
export BENCH_BIN=$DIR/bench_reduce
bench() {
  BENCH_REDUCE="$*" "$BENCH_BIN" --ignored --nocapture 2>/dev/null |
    grep -P '\t' | tail -1
}
$C game spec mastermind:4x6 > "$DIR/mm46.game"

# median GAME ARGS... -> prints the median line (by seconds, column 4)
median() {
  local out=() t
  for ((i = 0; i < RUNS; i++)); do
    line=$(timeout "${TIMEOUT:-120}" bash -c "$(declare -f bench); bench $*") || line="$1	-	timeout	${TIMEOUT:-120}	-	-"
    out+=("$line")
    t=$(cut -f4 <<<"$line")
    [[ $t =~ ^[0-9.]+$ ]] || { out[${#out[@]}-1]="$1	-	failed	-	-	-"; break; }
    if awk "BEGIN{exit !($t > 60)}"; then break; fi
  done
  printf '%s\n' "${out[@]}" | sort -t$'\t' -k4,4g | awk -v n=${#out[@]} 'NR==int((n+1)/2)'
}

printf 'game\tstrategy\tmode\tseconds\ttotal\tworst\troot total/generated/distinct/kept\tper depth generated/distinct/kept\n'
for g in coins:12 coins:39 coins:100 "$DIR/mm46.game" black-peg:6x6; do
  median "$g" max-models
  case $g in
    coins:12|*mm46.game) median "$g" max-models --no-reduce ;;
    *) printf '%s\tmax-models\ttable\t-\t(no explicit table: too many experiments)\n' "$g" ;;
  esac
done
for g in coins:12 mastermind:4x6; do
  median "$g" max-models --native
done
