#!/usr/bin/env bash
# Build and install the real NuSMV 2.5.4 (with MiniSat, so BMC works).
#
# Source: the PyPI source package pynusmv==1.0rc8, which carries
# dependencies/NuSMV/NuSMV-2.5.4.tar.gz and MiniSat 070721 with the patches
# NuSMV needs. NuSMV's own download site is not reliably reachable; PyPI is.
#
# Usage:  scripts/install-nusmv.sh
# Environment:
#   NUSMV_PREFIX   install prefix (default /usr/local); binary goes to $NUSMV_PREFIX/bin/NuSMV
#   NUSMV_SDIST    path to an already downloaded pynusmv-1.0rc8.tar.gz (skips pip download)
#   NUSMV_JOBS     parallel make jobs (default: number of CPUs)
#   NUSMV_KEEP_BUILD=1  keep the temporary build directory (printed at the end)
#
# Idempotent: if $NUSMV_PREFIX/bin/NuSMV exists and checks a tiny model with
# both BDD and BMC (MiniSat), the script says so and exits 0 immediately.
set -euo pipefail

PREFIX="${NUSMV_PREFIX:-/usr/local}"
BIN="$PREFIX/bin/NuSMV"
PYNUSMV_VERSION="1.0rc8"
JOBS="${NUSMV_JOBS:-$(nproc 2>/dev/null || echo 2)}"

say() { printf 'install-nusmv: %s\n' "$*"; }
die() { printf 'install-nusmv: error: %s\n' "$*" >&2; exit 1; }

# A model whose LTL spec is false at depth 2: the BDD engine and the BMC
# engine must both print a counterexample. BMC only works if MiniSat is linked.
smoke_test() {
    local nusmv="$1" dir out
    dir="$(mktemp -d)"
    cat >"$dir/smoke.smv" <<'EOF'
MODULE main
VAR x : 0..3;
ASSIGN init(x) := 0; next(x) := (x + 1) mod 4;
LTLSPEC G (x != 2)
EOF
    out="$("$nusmv" "$dir/smoke.smv" 2>&1)" || { rm -rf "$dir"; return 1; }
    grep -q -- '-- specification .* is false' <<<"$out" || { rm -rf "$dir"; return 1; }
    out="$("$nusmv" -bmc -bmc_length 3 "$dir/smoke.smv" 2>&1)" || { rm -rf "$dir"; return 1; }
    rm -rf "$dir"
    grep -q -- '-- specification .* is false' <<<"$out"
}

if [[ -x "$BIN" ]] && smoke_test "$BIN"; then
    say "NuSMV already installed and working (BDD and BMC); nothing to do"
    say "prefix: $PREFIX"
    say "binary: $BIN"
    exit 0
fi
[[ -e "$BIN" ]] && say "$BIN exists but fails the smoke test; rebuilding"

# --- build tools --------------------------------------------------------------
missing=()
for tool in gcc g++ make flex bison unzip patch perl; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
    say "missing build tools: ${missing[*]}; installing with apt-get"
    command -v apt-get >/dev/null 2>&1 \
        || die "no apt-get; install these yourself: ${missing[*]}"
    SUDO=""
    [[ "$(id -u)" -ne 0 ]] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
        build-essential flex bison unzip patch perl >/dev/null
fi

# --- sources ------------------------------------------------------------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nusmv-build.XXXXXX")"
cleanup() {
    if [[ "${NUSMV_KEEP_BUILD:-0}" == 1 ]]; then
        say "build directory kept: $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
say "building in $WORK with $JOBS job(s)"
start=$SECONDS

if [[ -n "${NUSMV_SDIST:-}" ]]; then
    [[ -f "$NUSMV_SDIST" ]] || die "NUSMV_SDIST=$NUSMV_SDIST is not a file"
    cp "$NUSMV_SDIST" "$WORK/"
else
    PIP=()
    if command -v pip3 >/dev/null 2>&1; then PIP=(pip3)
    elif command -v pip >/dev/null 2>&1; then PIP=(pip)
    elif python3 -m pip --version >/dev/null 2>&1; then PIP=(python3 -m pip)
    else die "pip is needed to download pynusmv==$PYNUSMV_VERSION (apt-get install python3-pip)"
    fi
    say "downloading pynusmv==$PYNUSMV_VERSION source package from PyPI"
    "${PIP[@]}" download --quiet --no-deps --no-binary :all: \
        --dest "$WORK" "pynusmv==$PYNUSMV_VERSION" \
        || die "pip download of pynusmv==$PYNUSMV_VERSION failed"
fi
SDIST="$(ls "$WORK"/pynusmv-*.tar.gz 2>/dev/null | head -n 1)"
[[ -n "$SDIST" ]] || die "no pynusmv-*.tar.gz in $WORK"
tar -xzf "$SDIST" -C "$WORK"
DEPS="$WORK/pynusmv-$PYNUSMV_VERSION/dependencies"
[[ -f "$DEPS/NuSMV/NuSMV-2.5.4.tar.gz" ]] || die "sdist lacks dependencies/NuSMV/NuSMV-2.5.4.tar.gz"
[[ -f "$DEPS/MiniSat/minisat2-070721.zip" ]] || die "sdist lacks dependencies/MiniSat/minisat2-070721.zip"

# --- MiniSat 070721 -----------------------------------------------------------
# nusmv.patch adds the C interface NuSMV links against (Solver_C, libMiniSat.a);
# pynusmv.patch makes the 2007 C++ compile with today's g++ (plus gnu++98).
say "building MiniSat 070721"
cd "$WORK"
unzip -q "$DEPS/MiniSat/minisat2-070721.zip"
patch -s -p0 -N <"$DEPS/MiniSat/nusmv.patch"
patch -s -p0 -N <"$DEPS/MiniSat/pynusmv.patch"
MINISAT="$WORK/minisat"
CXX="g++ -std=gnu++98" make -s -C "$MINISAT" lib >"$WORK/minisat.log" 2>&1 \
    || { tail -n 30 "$WORK/minisat.log" >&2; die "MiniSat build failed (log above)"; }
[[ -f "$MINISAT/libMiniSat.a" && -f "$MINISAT/Solver_C.h" ]] \
    || die "MiniSat build produced no libMiniSat.a / Solver_C.h"

# --- NuSMV 2.5.4 (with its bundled CUDD 2.4.1.1) -------------------------------
say "building NuSMV 2.5.4 (about 3 minutes on 2 cores)"
tar -xzf "$DEPS/NuSMV/NuSMV-2.5.4.tar.gz" -C "$WORK"
NUSMV_SRC="$WORK/NuSMV-2.5.4"
# `union wait` was removed from glibc long ago; CUDD only uses it as an int.
sed -i 's/union wait status;/int status;/' "$NUSMV_SRC/cudd-2.4.1.1/util/pipefork.c"
cd "$NUSMV_SRC/nusmv"
./configure --prefix="$PREFIX" \
    --enable-minisat \
    --with-minisat-libdir="$MINISAT" \
    --with-minisat-incdir="$MINISAT" >"$WORK/configure.log" 2>&1 \
    || { tail -n 30 "$WORK/configure.log" >&2; die "NuSMV configure failed (log above)"; }
make -j "$JOBS" >"$WORK/make.log" 2>&1 \
    || { tail -n 40 "$WORK/make.log" >&2; die "NuSMV build failed (log above)"; }
make install >"$WORK/install.log" 2>&1 \
    || { tail -n 30 "$WORK/install.log" >&2; die "NuSMV install into $PREFIX failed (log above)"; }

[[ -x "$BIN" ]] || die "make install did not produce $BIN"
smoke_test "$BIN" || die "$BIN is installed but fails the BDD/BMC smoke test"
say "built and installed in $((SECONDS - start)) s"
say "prefix: $PREFIX"
say "binary: $BIN"
