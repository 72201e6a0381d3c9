#!/usr/bin/env python3
"""Write boards that have no path whatever their numbers say, one puzzle
file per board, into OUTDIR: the families `grid::no_path`
refutes before any search, at several sizes and for every variant where
they apply.

* colours: a numbrix `1` on the colour of the even steps of an odd board
  (corner edge and middle); two waypoint ends, or numbrix `1` and `n`,
  on one colour of an even board; two more open cells of one colour than
  of the other (two cells of one colour blocked), with no number, one,
  or both ends, and as a waypoint board;
* dead ends: three corners with one neighbour left;
* split: a wall across the board, with no number, or with `1` on one
  side;
* bridge: the wall with a one-cell gap and both ends of the path on one
  side; three parts around one cell.

Every board is unsolvable by construction (the argument is in the family's
name); `scripts/sweep-nopath.sh` times `checkmate solve` on them.

Usage: gen-nopath.py OUTDIR
"""

import os
import sys


def write(outdir, name, variant, grid):
    with open(os.path.join(outdir, f"{name}.txt"), "w") as f:
        f.write(f"# no path: {name}\nname: {name}\nvariant: {variant}\n")
        for row in grid:
            f.write(" ".join(f"{t:>3}" for t in row) + "\n")


def blank(n):
    return [["." for _ in range(n)] for _ in range(n)]


def colours(outdir):
    for n in (7, 9, 15):
        g = blank(n)
        g[0][1] = "1"
        write(outdir, f"numbrix-{n}-one-on-dark", "numbrix", g)
        g = blank(n)
        g[n // 2][n // 2 + 1] = "1"
        write(outdir, f"numbrix-{n}-one-on-dark-mid", "numbrix", g)
    for n in (6, 8, 10, 12, 14):
        g = blank(n)
        g[0][0], g[n - 1][n - 1] = "1", "2"
        write(outdir, f"waypoint-{n}-ends-one-colour", "waypoint", g)
        g = blank(n)
        g[0][0], g[0][2] = "1", str(n * n)
        write(outdir, f"numbrix-{n}-ends-one-colour", "numbrix", g)
    for n in (6, 8, 10, 12):
        def two_dark_blocked():
            g = blank(n)
            g[1][2] = g[3][n - 2] = "X"
            return g
        g = two_dark_blocked()
        write(outdir, f"numbrix-{n}-imbalance-none", "numbrix", g)
        g = two_dark_blocked()
        g[0][0] = "1"
        write(outdir, f"numbrix-{n}-imbalance-one", "numbrix", g)
        g = two_dark_blocked()
        g[0][0], g[n - 1][n - 1] = "1", str(n * n - 2)
        write(outdir, f"numbrix-{n}-imbalance-two", "numbrix", g)
        g = two_dark_blocked()
        g[0][0], g[n - 1][n - 1] = "1", "2"
        write(outdir, f"waypoint-{n}-imbalance", "waypoint", g)


def structure(outdir):
    for n in (8, 12, 15):
        for v in ("numbrix", "hidato", "waypoint"):
            g = blank(n)
            corners = [((0, 1), (1, 1)), ((0, n - 2), (1, n - 2)), ((n - 1, 1), (n - 2, 1))]
            for a, b in corners:
                g[a[0]][a[1]] = "X"
                if v == "hidato":  # king moves: the diagonal too
                    g[b[0]][b[1]] = "X"
            if v == "waypoint":
                g[n // 2][n // 2], g[n - 1][n - 1] = "1", "2"
            write(outdir, f"{v}-{n}-dead-ends", v, g)

            g = blank(n)
            for r in range(n):
                g[r][n // 2] = "X"
            if v == "waypoint":
                g[0][0], g[n - 1][0] = "1", "2"
            write(outdir, f"{v}-{n}-split", v, g)
            if v != "waypoint":
                g[0][0] = "1"
                write(outdir, f"{v}-{n}-split-one", v, g)

            g = blank(n)
            for r in range(n):
                if r != n // 2:
                    g[r][n // 2] = "X"
            cells = sum(t != "X" for row in g for t in row)
            g[0][0], g[n - 1][0] = ("1", "2") if v == "waypoint" else ("1", str(cells))
            write(outdir, f"{v}-{n}-bridge-one-side", v, g)

            g = blank(n)
            for r in range(n):
                g[r][n // 2] = "X"
            for c in range(n // 2 + 1, n):
                g[n // 2][c] = "X"
            g[n // 2][n // 2] = "."
            if v == "waypoint":
                g[0][0], g[n - 1][0] = "1", "2"
            # King moves: three parts around the gap; orthogonal: cut apart.
            write(outdir, f"{v}-{n}-three-parts", v, g)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        # `--help` (or any option) is not a directory to write into.
        if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
            print(__doc__.strip())
            return
        sys.exit(__doc__.strip().splitlines()[-1])
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    colours(outdir)
    structure(outdir)


if __name__ == "__main__":
    main()
