#!/usr/bin/env bash
# Writes scripts/link-order.txt, the order in which the linker lays out
# the functions of the release `checkmate` binary (scripts/rustc-wrapper.sh
# hands it to LLD as `--symbol-ordering-file`): the functions a short
# `checkmate solve` runs, as callgrind meets them, over the 6x6 and 9x9
# puzzles of models/bench/ (`solve --json` and `solve --count 2 --json`),
# those more runs meet first.
#
# Why: a short solve runs a few ms, and after a pause (as a user's run, or
# a benchmark's, starts) much of it is spent fetching its code from
# memory, one 64-byte line at a time, from all over a 4 MB `.text`. Laid
# out side by side, the ~900 functions it runs share lines and pages, and
# the prefetchers fetch them ahead. Measured (CPU ms after a 50 ms pause,
# medians of 41 interleaved runs, the same code linked without and with
# this order): numbrix-9x9-s1 3.50 -> 3.16, hidato-9x9-unique-s3 2.47 ->
# 2.22, waypoint-9x9-unique-s3 2.42 -> 2.13, numbrix-9x9-s2 `--count 2`
# 4.68 -> 4.41; puzzles it never ran: a fresh hidato 10x10 `--count 2`
# 21.3 -> 20.0, a waypoint 8x8 4.04 -> 3.82. The instructions run are the
# same (callgrind).
#
# Why by how many runs meet a function: in the order first met over all
# runs (the first run a hidato 6x6 with the SAT solver), the ~670 KB of
# code numbrix-9x9-s1 runs (no solver: the domain analysis decides it)
# lay over 1 MB with the others', a page fault per 64 KiB of it after a
# pause (fault-around): text faults 22-25 -> 15-20 (`perf record -e
# page-faults`). Its CPU time did not measurably move: five binaries of
# 2026-12-07 with the old and new orders, each copied afresh, ran
# numbrix-9x9-s1 in 2.94-2.98 ms and `--version` in 0.81-0.83 ms
# (medians of 61 interleaved runs). (Earlier gains of 8-14% came from
# comparing an old file with fresh copies: see scripts/rustc-wrapper.sh
# on how a file's page-cache state moves short runs.)
#
# The names are mangled with a hash of the crate and the item's path, not
# its body: editing a function keeps its place; a renamed or new one, or
# a new compiler or dependency version, falls back to the default place
# (the linker ignores names it does not find). The crate's part of the
# hash is the same in every checkout (scripts/rustc-wrapper.sh gives it a
# seed without paths), so the file written here names the functions of
# every clone's build. Functions ThinLTO made visible across modules carry
# a hash of their module too (`.llvm.<digits>`, ~70 of the ~1,000): an
# edit anywhere in that module moves them. Run this again after such
# changes; cargo does not see the file, so touch src/main.rs (this script
# does) before the next release build.
#
# Usage: scripts/link-order.sh   (needs valgrind; takes ~1 min)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "link-order.sh: valgrind not found" >&2; exit 1; }
cargo build --release -q
bin=target/release/checkmate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=0
for f in models/bench/*-6x6-*.txt models/bench/*-9x9-*.txt; do
    for count in "" "--count 2"; do
        runs=$((runs + 1))
        # shellcheck disable=SC2086
        valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/$runs.out" \
            "$bin" solve $count --json "$f" >/dev/null 2>&1
    done
done
# `fn=(id) name` and `cfn=(id) name` name a function the first time a
# profile mentions it; later mentions give the id alone. A recursive
# call's name ends in `'2` (callgrind's depth mark), not the symbol's.
# Each run's functions once, in the order it meets them; then every
# function by the number of runs that meet it, most first (ties in the
# order first met): the code every short solve runs (start-up, parsing,
# the domain analysis, the checks) lies together at the front, and what
# only some runs need (the SAT solver, the encoder) after it.
for ((i = 1; i <= runs; i++)); do
    grep -oE '^c?fn=\([0-9]+\) [^ ]+' "$tmp/$i.out" | cut -d' ' -f2 |
        grep -v '^0x\|^(' | sed "s/'[0-9]*\$//" | awk '!seen[$0]++'
done | awk '!($0 in runs) { first[$0] = NR } { runs[$0]++ }
    END { for (f in runs) print runs[f], first[f], f }' |
    sort -k1,1nr -k2,2n | cut -d' ' -f3 >"$tmp/met.txt"
# What a run outside valgrind runs besides, first: the C runtime's
# entry, which callgrind names `(below main)` or not at all, and the
# vDSO's set-up (valgrind's process has no vDSO: the symbol look-up and
# its `strcmp`). And the C library's string functions in every variant
# of each family met (`__memmove_avx_…` under valgrind, whose CPU has no
# AVX-512, but `__memmove_avx512_…` or `__memmove_evex_…` on one that
# has: the C library picks one at start-up), each family where its first
# variant is; only names the binary has. Text page faults
# (`perf record -e page-faults`) of numbrix-9x9-s1 17-19 -> 11-13, of
# `--version` 17-18 -> 11 (CPU time, as above, within the noise).
nm --defined-only "$bin" | awk '{ print $3 }' | sort -u >"$tmp/symbols.txt"
{
    printf '%s\n' _start __libc_start_main_impl __libc_start_call_main \
        frame_dummy _dl_non_dynamic_init setup_vdso _dl_new_object \
        _dl_add_to_namespace_list _dl_setup_hash dl_vdso_vsym \
        _dl_lookup_symbol_x __strcmp_avx2
    cat "$tmp/met.txt"
} | awk 'NR == FNR { sym[++n] = $0; have[$0] = 1; next }
        $0 in have { print }
        match($0, /^__(mem|str|stp|rawmem|wmem|wcs)[a-z0-9]*_/) {
            family = substr($0, 1, RLENGTH)
            if (!(family in done)) {
                done[family] = 1
                for (i = 1; i <= n; i++)
                    if (index(sym[i], family) == 1) print sym[i]
            }
        }' "$tmp/symbols.txt" - | awk '!seen[$0]++' >"$tmp/order.txt"
mv "$tmp/order.txt" scripts/link-order.txt
touch src/main.rs
echo "scripts/link-order.txt: $(wc -l <scripts/link-order.txt) functions from $runs runs"
