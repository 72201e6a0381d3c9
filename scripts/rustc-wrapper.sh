#!/bin/sh
# rustc wrapper for this package's own crates (.cargo/config.toml,
# `build.rustc-workspace-wrapper`): runs `$1` (rustc) with the remaining
# arguments, and links the optimised `checkmate` binary statically, at a
# fixed address (`-C target-feature=+crt-static -C relocation-model=static`)
# when building for the GNU/Linux host without the `cadical` feature.
#
# Why: the whole run of `checkmate solve` on a small puzzle is a few ms,
# and starting a process is a large part of it. A dynamically linked
# binary spends ~0.3 ms of CPU per run in the dynamic loader (mapping
# libc, libm and libgcc_s, resolving symbols, relocating), and a
# position-independent one another ~0.08 ms applying its 7,500
# relocations (`checkmate --version`: 1.07 ms -> 0.70 ms CPU; /bin/true
# takes 0.6 ms). Only the final binary can be built this way: `+crt-static`
# in `rustflags` would also reach the proc-macros, which rustc refuses to
# build against a static C runtime on GNU targets, and cargo has no
# per-profile `rustflags` on stable.
#
# The same binary gets its functions laid out in the order of
# scripts/link-order.txt (written by scripts/link-order.sh, which says
# why: a short solve after a pause takes 6-10% less CPU) when LLD links
# it: on x86_64 from Rust 1.90 on (rustc's default linker there), unless
# the arguments choose a linker of their own. Another linker would reject
# `--symbol-ordering-file`, so it gets the default layout.
#
# And that binary is written once more, by plain writes, when it is
# linked (see `rewrite` below): the linker writes its output through a
# mapping, and the copy of the file the kernel then keeps in memory (4 KiB
# pages) cost each start of the program more than a copy written by
# `write` does (same bytes; larger pages): after a pause, CPU ms (medians
# of 41 interleaved runs) numbrix-9x9-s1 3.01 -> 2.88,
# hidato-9x9-unique-s3 2.39 -> 2.29, `--version` 0.87 -> 0.78; page
# faults on its code 18 -> 12 (`perf record -e page-faults`). Written in
# one piece (`dd bs=64M`), the file is kept in 2 MiB pages where the
# kernel and file system allow it, and with LLD its segments start on a
# 2 MiB boundary in the file and in memory (`-z max-page-size=2097152 -z
# separate-loadable-segments`): the kernel then maps the code 2 MiB at a
# time, numbrix-9x9-s1's code faults 12-13 -> 2, all its faults 53-55 ->
# 44; CPU ms (61 runs) 3.07 -> 2.94, `--version` 0.85 -> 0.81. The
# padding makes the file ~4 MB larger. A binary installed by copying it
# (`cargo install`, `cp`) gets the page sizes its copy was written with.
rustc=$1
shift
# This script's directory (scripts/), absolute.
here=$(cd "$(dirname "$0")" && pwd)
name=
type=
opt=0
cadical=0
target=
out_dir=
extra=
prev=
for arg in "$@"; do
    case "$prev" in
        --crate-name) name=$arg ;;
        --crate-type) type=$arg ;;
        --target) target=$arg ;;
        --out-dir) out_dir=$arg ;;
    esac
    case "$arg" in
        opt-level=3) opt=1 ;;
        extra-filename=*) extra=${arg#extra-filename=} ;;
        # The embedded CaDiCaL links the C++ runtime as a shared library;
        # that build keeps the default (dynamic) linking.
        'feature="cadical"') cadical=1 ;;
    esac
    prev=$arg
done
# Cargo's `-C metadata` (the seed of every symbol's mangled hash) hashes
# the path of this wrapper, so each checkout of the package mangles its
# functions differently, and scripts/link-order.txt, written in one
# checkout, named none of this package's functions in another (a clean
# clone elsewhere matched 413 of its 1,012 names, the checkout that
# wrote it 931). The optimised builds of this package's crates get a seed
# from what cargo asks of the compilation instead, less the paths: the
# same in every checkout, different for the lib, the binary and their
# test builds (which differ in crate type, `--test` or flags). The
# package's own paths in the debug info are written relative to it: the
# `.llvm.<digits>` ThinLTO appends to some names hashes their module,
# debug info and all. With both, a clean clone anywhere builds the same
# binary, byte for byte.
remap=
if [ "$name" = checkmate ] && [ "$opt" = 1 ] && command -v sha256sum >/dev/null 2>&1; then
    seed=$(for arg in "$@"; do
        case "$arg" in
            metadata=* | extra-filename=* | */*) ;;
            *) printf '%s\n' "$arg" ;;
        esac
    done | sha256sum | cut -c1-16)
    n=$#
    for arg in "$@"; do
        case "$arg" in
            metadata=*) arg="metadata=$seed" ;;
        esac
        set -- "$@" "$arg"
    done
    shift "$n"
    remap="--remap-path-prefix=${here%/*}=."
fi
# Whether LLD links: rustc's default on x86_64 Linux from 1.90 on, and no
# linker chosen in the arguments (`-C linker=`, `linker-flavor`,
# `-fuse-ld=`, ..., from RUSTFLAGS or cargo's configuration).
lld_links() {
    [ "$(uname -sm)" = "Linux x86_64" ] || return 1
    for arg in "$@"; do
        case "$arg" in
            *linker* | *link-self-contained* | *fuse-ld*) return 1 ;;
        esac
    done
    minor=$("$rustc" -vV | sed -n 's/^release: 1\.\([0-9]*\).*/\1/p')
    [ -n "$minor" ] && [ "$minor" -ge 90 ]
}
# Writes the linked binary `$out_dir/$name$extra` again, by plain writes
# into a new file put in its place (cargo then links target/release/
# to the new one); when there is no such file, or a step fails, it stays
# as the linker wrote it.
rewrite() {
    bin_out="$out_dir/$name$extra"
    [ -n "$out_dir" ] && [ -f "$bin_out" ] || return 0
    if dd if="$bin_out" of="$bin_out.rewrite" bs=64M status=none &&
        chmod --reference="$bin_out" "$bin_out.rewrite"; then
        mv -f "$bin_out.rewrite" "$bin_out"
    else
        rm -f "$bin_out.rewrite"
    fi
    return 0
}
if [ "$name" = checkmate ] && [ "$type" = bin ] && [ "$opt" = 1 ] && [ -z "$target" ] && [ "$cadical" = 0 ]; then
    case "$(uname -sm)" in
        "Linux x86_64" | "Linux aarch64")
            order="$here/link-order.txt"
            if [ -f "$order" ] && lld_links "$@"; then
                "$rustc" "$@" ${remap:+"$remap"} -C target-feature=+crt-static -C relocation-model=static \
                    -C link-arg=-Wl,--symbol-ordering-file="$order" \
                    -C link-arg=-Wl,--no-warn-symbol-ordering \
                    -C link-arg=-Wl,-z,max-page-size=2097152 \
                    -C link-arg=-Wl,-z,separate-loadable-segments || exit
            else
                "$rustc" "$@" ${remap:+"$remap"} -C target-feature=+crt-static -C relocation-model=static || exit
            fi
            rewrite
            exit 0
            ;;
    esac
fi
exec "$rustc" "$@" ${remap:+"$remap"}
