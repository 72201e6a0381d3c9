#!/usr/bin/env python3
"""Write the straightforward hand-written NuSMV model of a *waypoint*
puzzle file, in the style people write by hand (cf. the reference model
behind shared/reference/nusmv-2.5.4/waypoint-3x4.*): `index` ranges over
all cells row-major, `plates` marks visited cells as 0/1, `sequence` is the
cell of the last waypoint reached, moves are a `case` table of
neighbours, and a stuttering self-loop once the goal holds.

It exists only as a yardstick for scripts/bench-nusmv.sh: checkmate's own
model must not be slower than this one.

Usage: hand-model.py PUZZLE.txt > model.smv
"""

import sys


def read(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if ":" in line:
            key, value = (s.strip() for s in line.split(":", 1))
            if key == "variant" and value != "waypoint":
                sys.exit("hand-model.py: only waypoint puzzles")
            continue
        rows.append(line.split())
    return rows


def main():
    rows = read(sys.argv[1])
    h, w = len(rows), len(rows[0])
    n = h * w
    blocked = {r * w + c for r in range(h) for c in range(w) if rows[r][c] == "X"}
    num = {
        r * w + c: int(rows[r][c])
        for r in range(h)
        for c in range(w)
        if rows[r][c].isdigit()
    }
    cell_of = {v: k for k, v in num.items()}
    last = max(num.values())
    start, end = cell_of[1], cell_of[last]
    out = ["MODULE main", "VAR", f"  index : 0..{n - 1};",
           f"  sequence : 0..{n - 1};", f"  plates : array 0..{n - 1} of 0..1;",
           "ASSIGN", f"  init(index) := {start};", f"  init(sequence) := {start};"]
    for i in range(n):
        out.append(f"  init(plates[{i}]) := {1 if i == start else 0};")
    out.append("  next(index) := case")
    out.append(f"    goal_state : index;")
    for i in range(n):
        if i in blocked:
            continue
        r, c = divmod(i, w)
        nb = [
            (r + dr) * w + c + dc
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < h and 0 <= c + dc < w and (r + dr) * w + c + dc not in blocked
        ]
        if nb:
            out.append(f"    index = {i} : {{{', '.join(map(str, nb))}}};")
    out.append("    TRUE : index;")
    out.append("  esac;")
    out.append("  next(sequence) := case")
    for k in range(2, last + 1):
        out.append(f"    next(index) = {cell_of[k]} : {cell_of[k]};")
    out.append("    TRUE : sequence;")
    out.append("  esac;")
    for i in range(n):
        out.append(
            f"  next(plates[{i}]) := case next(index) = {i} : 1; TRUE : plates[{i}]; esac;"
        )
    # Once solved the path stutters; before that, move to an unvisited
    # cell, and enter waypoint k only right after waypoint k - 1.
    out.append("TRANS")
    out.append("  goal_state | (plates[next(index)] = 0")
    for k in range(2, last + 1):
        out.append(f"    & (next(index) = {cell_of[k]} -> sequence = {cell_of[k - 1]})")
    out.append("  );")
    out.append("DEFINE")
    full = " & ".join(f"plates[{i}] = 1" for i in range(n) if i not in blocked)
    out.append(f"  goal_state := {full} & index = {end};")
    out.append("LTLSPEC !(F goal_state)")
    print("\n".join(out))


if __name__ == "__main__":
    main()
