#!/usr/bin/env bash
# Byte-compare `checkmate cnf` of every puzzle in models/bench/ and
# models/grid/ (default encoding and each --encoding) against outputs saved
# earlier: encoder refactors must not change a single clause. Only a
# SHA-256 digest of each output is stored (the 20x20 waypoint CNFs in the
# log encoding are ~660 MB each; whole copies filled the disk once).
#
# Usage: scripts/cnf-diff.sh --save DIR [BINARY]   # record reference outputs
#        scripts/cnf-diff.sh DIR [BINARY]          # compare against them
#        (BINARY defaults to target/release/checkmate)
set -euo pipefail
cd "$(dirname "$0")/.."
save=0
if [[ ${1:-} == --save ]]; then save=1; shift; fi
dir=${1:?usage: scripts/cnf-diff.sh [--save] DIR [BINARY]}
bin=${2:-target/release/checkmate}
mkdir -p "$dir"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
same=0
differ=0
for puzzle in models/bench/*.txt models/grid/*.txt; do
    for enc in default one-hot order log; do
        args=(cnf "$puzzle")
        [[ $enc == default ]] || args+=(--encoding "$enc")
        ref="$dir/$(basename "$(dirname "$puzzle")")-$(basename "$puzzle" .txt)-$enc.sha256"
        { "$bin" "${args[@]}" 2>&1 || true; } | sha256sum >"$tmp"
        if ((save)); then
            cp "$tmp" "$ref"
            continue
        fi
        if cmp -s "$ref" "$tmp"; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            echo "DIFFERS: $puzzle ($enc)"
        fi
    done
done
((save)) && { echo "cnf-diff: saved to $dir"; exit 0; }
echo "cnf-diff: $same identical, $differ different"
((differ == 0))
