//! Board-level refutations: reasons a grid puzzle has no path whatever
//! its numbers say, found on the board alone (cells the start cannot
//! reach, more dead ends than a path has ends, a cut cell or pair of
//! cells the numbers cannot be passed through in any order, chessboard
//! colours that do not alternate, a shortest stretch that parts the board,
//! two consecutive border numbers with others on both sides).
//!
//! Input: a [`Puzzle`]. Output: [`reason`], the first argument that
//! applies, as a sentence for the `why:` line of an `unsat` answer; the
//! `no_path` extra of [`super::strengthen`] turns it into `INVAR FALSE`.
//!
//! Invariant: a reason is given only for a board with no path (each
//! argument is checked against brute force on every small board in the
//! tests); no reason says nothing (the engines decide).

use super::cuts::{self, Cut, Graph, Known};
use super::strengthen::{
    adjacency, anchors, colour, colour_counts, distances, in_reach, odd_colour,
};
use super::{CellId, Coord, Puzzle, Variant};

/// Why `p` has no solution whatever its numbers say, if the board tells
/// (the arguments listed at [`super::strengthen::no_path`], whose extra
/// turns it into `INVAR FALSE`, and which `checkmate solve` prints with an
/// `unsat` answer).
pub fn reason(p: &Puzzle) -> Option<String> {
    let board = cuts::board(p);
    let (g, single, reached) = (&board.graph, &board.single, board.reached);
    if g.len() == 0 {
        return None;
    }
    if reached < g.len() {
        return Some(format!(
            "cell {} reaches {reached} of the {} open cells",
            p.coord(CellId(0)),
            g.len()
        ));
    }
    let anchors = anchors(p);
    dead_end_conflict(p, g)
        .or_else(|| cut_conflict(p, g, single))
        .or_else(|| parity_conflict(p, &anchors))
        .or_else(|| split_conflict(p, &anchors))
        .or_else(|| leg_split_conflict(p))
        .or_else(|| pair_cut_conflict(p, g, &anchors))
}

/// Why a stretch of the path that the numbers make as short as the board
/// allows, from the border to the border, leaves no path, if one does
/// (numbrix: the moves are orthogonal and the steps are known).
///
/// Numbers `i` on cell `a` and `j` on cell `b` that are `j - i` moves
/// apart on the board make steps `i..=j` a shortest way from `a` to `b`:
/// its cells are among those on some shortest way (`d(a, c) + d(c, b) =
/// d(a, b)`). With `a` and `b` on the border, that way is a curve across
/// the board (through the cells' centres, and out to the edge at both
/// ends) which no move of the rest of the path crosses: a move joins two
/// centres a unit apart, and so meets the curve only in a cell of it.
/// The border cells on either side of it stay on their side. When
/// `i = 1` or `j` is the last step, the rest of the path is one walk,
/// which cannot reach both sides: an open border cell off every shortest
/// way on each side leaves no path. (King moves cross each other, and a
/// waypoint's steps are not known: neither is looked at.)
///
/// Why: a CDCL solver refutes this only by exhausting the ways across; a
/// random 4x40 numbrix board with `1` and `10` nine moves apart on
/// opposite long sides was undecided after 10 s.
fn split_conflict(p: &Puzzle, anchors: &[(usize, CellId)]) -> Option<String> {
    let (rows, cols, n) = (p.rows(), p.cols(), p.open_count());
    if p.variant != Variant::Numbrix || rows < 2 || cols < 2 {
        return None;
    }
    let ring = border_ring(p);
    let place = |c: CellId| ring.iter().position(|&at| at == p.coord(c));
    let ends: Vec<(usize, CellId, usize)> = anchors
        .iter()
        .filter(|&&(k, _)| k == 1 || k == n)
        .filter_map(|&(k, c)| Some((k, c, place(c)?)))
        .collect();
    // (Most boards have neither end given on the border.)
    if ends.is_empty() {
        return None;
    }
    let adj = adjacency(p);
    for (k, e, pe) in ends {
        let from_e = distances(&adj, e);
        for &(j, b) in anchors {
            let d = k.abs_diff(j);
            if j == k || from_e[b.index()] != Some(d) {
                continue;
            }
            let Some(pb) = place(b) else {
                continue;
            };
            let from_b = distances(&adj, b);
            // An open border cell on no shortest way from `e` to `b`
            // (never on the stretch), strictly between `from` and `to`
            // clockwise.
            let off_way = |from: usize, to: usize| {
                let len = (to + ring.len() - from) % ring.len();
                (1..len).map(|i| ring[(from + i) % ring.len()]).find(|&at| {
                    p.cell_id(at).is_some_and(|c| {
                        !matches!((from_e[c.index()], from_b[c.index()]),
                                (Some(x), Some(y)) if x + y == d)
                    })
                })
            };
            if let (Some(x), Some(y)) = (off_way(pe, pb), off_way(pb, pe)) {
                let (lo, hi) = if k < j {
                    ((k, e), (j, b))
                } else {
                    ((j, b), (k, e))
                };
                return Some(format!(
                    "{} at {} and {} at {} are as few moves apart as the board allows, so the path between them runs from the border to the border and parts cells {x} and {y}, which the rest of the path (one walk) would have to join",
                    lo.0,
                    p.coord(lo.1),
                    hi.0,
                    p.coord(hi.1),
                ));
            }
        }
    }
    None
}

/// The border positions of a board of two rows and two columns at least,
/// clockwise from the top-left corner, each once (open or not).
fn border_ring(p: &Puzzle) -> Vec<Coord> {
    let (rows, cols) = (p.rows(), p.cols());
    (0..cols)
        .map(|col| Coord { row: 0, col })
        .chain((1..rows).map(|row| Coord { row, col: cols - 1 }))
        .chain((0..cols - 1).rev().map(|col| Coord { row: rows - 1, col }))
        .chain((1..rows - 1).rev().map(|row| Coord { row, col: 0 }))
        .collect()
}

/// Why the stretch between two consecutive numbers on the border leaves
/// no path, if it does (orthogonal moves: waypoint and numbrix).
///
/// The stretch of the path from number `a` to the next number `b` (the
/// leg between two waypoints; numbrix: the steps between two given
/// ones), both on border cells, is a curve across the board, as in
/// [`split_conflict`]: no move of the rest of the path crosses it, and
/// the border cells off it on either side of its ends stay on their side.
/// The path before `a` is one walk, and it holds every number before
/// `a`, none of them on the stretch; so does the path after `b` with the
/// numbers after `b`. Numbers before `a` on border cells on both sides,
/// or numbers after `b` on both sides, leave no path, whatever way the
/// stretch takes. (King moves cross each other: hidato is not looked at.)
///
/// Why: a CDCL solver refutes this only by exhausting the ways across; a
/// random open 12x12 waypoint board (waypoints 1 and 2 on the left and
/// bottom sides, 7 and 8 on either side of them) took it 16 s.
fn leg_split_conflict(p: &Puzzle) -> Option<String> {
    if p.variant.diagonal() || p.rows() < 2 || p.cols() < 2 {
        return None;
    }
    let ring = border_ring(p);
    let place = |c: CellId| ring.iter().position(|&at| at == p.coord(c));
    let marks: Vec<(u32, CellId, Option<usize>)> = p
        .givens()
        .into_iter()
        .map(|(k, c)| (k, c, place(c)))
        .collect();
    for (i, pair) in marks.windows(2).enumerate() {
        let [(ka, a, Some(pa)), (kb, b, Some(pb))] = *pair else {
            continue;
        };
        // Whether ring position `at` is strictly between `pa` and `pb`
        // clockwise (else on the other side, or an end).
        let len = |from: usize, to: usize| (to + ring.len() - from) % ring.len();
        let side = |at: usize| len(pa, at) < len(pa, pb);
        let apart = |group: &[(u32, CellId, Option<usize>)]| {
            let on = |s: bool| {
                group
                    .iter()
                    .copied()
                    .find(|m| m.2.is_some_and(|at| side(at) == s))
            };
            Some((on(true)?, on(false)?))
        };
        let (before, after) = (&marks[..i], &marks[i + 2..]);
        if let Some((x, y)) = apart(before).or_else(|| apart(after)) {
            return Some(format!(
                "{ka} at {} and {kb} at {} are on the border, so the path between them parts the board, and {} at {} and {} at {} are on either side: the rest of the path on their side of it is one walk and would have to join them",
                p.coord(a),
                p.coord(b),
                x.0,
                p.coord(x.1),
                y.0,
                p.coord(y.1),
            ));
        }
    }
    None
}

/// Why two cells whose removal cuts the board leave no path, if they do
/// (see [`cuts`]): the path passes each once and runs through one part
/// at a time in between, so four parts or more leave no path, and so do
/// part sizes and numbers that fit no way of passing them; or that fit
/// none once each of the two cells is kept at least as many steps from
/// every number as it is moves from the number's cell on the open board
/// (and on an orthogonal board, an even number of steps more:
/// [`in_reach`]).
///
/// Why the distances: on random hidato boards with a two-cell neck and a
/// few numbers (`gen-random-board.py` 3x33 with two numbers, 3x50 with
/// two, 4x24 with four) the sizes and numbers fit only ways that put a
/// cut cell fewer steps from a number than it is moves from it. The CDCL
/// search took 57 s to refute the 4x24 and had not decided the others
/// after 120 s and 580 s; with the distances all three are `unsat` at
/// once.
fn pair_cut_conflict(p: &Puzzle, g: &Graph, anchors: &[(usize, CellId)]) -> Option<String> {
    let pairs = cuts::board(p).pairs(p);
    let n = g.len();
    // The moves between two cells on the open board: no more than on
    // this one, with the same parity on an orthogonal one, and no search
    // (enough for the boards below; the check costs a 15x15 numbrix
    // solve 2% more instructions, a 9x9 one 0.1%).
    let diagonal = p.variant.diagonal();
    let near = |c: CellId, s: usize| {
        anchors.iter().all(|&(k, at)| {
            let d = p.coord(c).moves(p.coord(at), diagonal);
            in_reach(s, k, Some(d), !diagonal)
        })
    };
    let far = Known {
        n,
        anchors,
        ok: Some(&near),
    };
    // One cut, set to each pair in turn. The distances only narrow the
    // ways, so a pair that fits with them fits without: one search per
    // pair, and a second only for the pair named, to say why.
    let mut cut = Cut::default();
    pairs.iter().find(|pair| {
        cut.set(g, &pair[..]);
        !cuts::fits(&cut, &far)
    })?;
    let plain = Known {
        n,
        anchors,
        ok: None,
    };
    let by_distance = cuts::fits(&cut, &plain);
    let (a, b) = (p.coord(cut.cells[0]), p.coord(cut.cells[1]));
    let sizes = || {
        let sizes: Vec<String> = cut.sizes().iter().map(usize::to_string).collect();
        sizes.join(", ")
    };
    Some(match cut.parts() {
        parts if parts > 3 => format!(
            "removing cells {a} and {b} leaves {parts} parts, and a path passing them once each joins three at most"
        ),
        _ if by_distance => format!(
            "removing cells {a} and {b} leaves parts of {} cells, and the path passes each once: with each of the two at least as many steps from every number as it is moves from it, the numbers fit no order of the walks through the parts",
            sizes()
        ),
        _ => format!(
            "removing cells {a} and {b} leaves parts of {} cells, and the path passes each once: the numbers fit no order of the walks through the parts",
            sizes()
        ),
    })
}

/// Why a cell whose removal cuts the board leaves no path, if one does.
/// The path passes such a cell `a` once, so it is the walk through one
/// part, then `a`, then the walk through the other: three parts or more
/// leave no path, and with two the numbers must fit one of the two
/// orders (numbrix/hidato: the first part holds steps `1..=|first|`, `a`
/// the next; waypoint: the first waypoint in the first part, the last in
/// the second, and every waypoint of the first part before `a`'s and
/// every one of the second).
/// `single`: the cut cells ([`cuts::cut_cells`]).
fn cut_conflict(p: &Puzzle, g: &Graph, single: &[bool]) -> Option<String> {
    let mut cells = (0..g.len())
        .filter(|&a| single[a])
        .map(|a| CellId(a as u32))
        .peekable();
    // (Most boards have no such cell, and need no numbers.)
    cells.peek()?;
    let givens = p.givens();
    for a in cells {
        let cut = Cut::new(g, &[a]);
        if cut.parts() > 2 {
            return Some(format!(
                "removing cell {} leaves {} parts, and a path joins two at most",
                p.coord(a),
                cut.parts()
            ));
        }
        // The order with part `first` before `a`.
        let fits = |first: u32| {
            let side = |c: CellId| match cut.part_of(c) {
                _ if c == a => 1,
                x if x == first => 0,
                _ => 2,
            };
            match p.variant {
                Variant::Waypoint => {
                    let on = |s: usize| givens.iter().filter(move |g| side(g.1) == s).map(|g| g.0);
                    let start = givens.first().filter(|g| g.0 == 1).map(|g| g.1);
                    let last = givens.last().map(|g| g.1);
                    start.is_some_and(|c| side(c) == 0)
                        && last.is_some_and(|c| side(c) == 2)
                        && on(0).max() < on(1).chain(on(2)).min()
                        && on(1).max() < on(2).min()
                }
                _ => {
                    let len = cut.sizes()[first as usize];
                    givens.iter().all(|&(k, c)| match side(c) {
                        0 => k as usize <= len,
                        1 => k as usize == len + 1,
                        _ => k as usize >= len + 2,
                    })
                }
            }
        };
        if !fits(0) && !fits(1) {
            return Some(format!(
                "the path passes cell {} once, between its two parts, and the numbers fit neither order",
                p.coord(a)
            ));
        }
    }
    None
}

/// Why the cells with one neighbour, which only an end of the path can
/// be on, leave no path, if they do.
fn dead_end_conflict(p: &Puzzle, g: &Graph) -> Option<String> {
    let n = g.len();
    if n < 2 {
        return None;
    }
    let mut dead = (0..n as u32)
        .map(CellId)
        .filter(|&c| g.neighbours(c).len() <= 1)
        .peekable();
    // (Most boards have none, and need not look for the ends.)
    dead.peek()?;
    let ends: Vec<CellId> = [p.start(), p.end()].into_iter().flatten().collect();
    let mut free = 2 - ends.len().min(2);
    for c in dead {
        let out = g.neighbours(c);
        if ends.contains(&c) {
            continue;
        }
        if let Some(k) = p.number(c) {
            return Some(format!(
                "cell {} has {} neighbour(s), so it is an end, but holds {k}",
                p.coord(c),
                out.len()
            ));
        }
        if free == 0 {
            return Some(format!(
                "cell {} has {} neighbour(s), so it is an end, and none is left",
                p.coord(c),
                out.len()
            ));
        }
        free -= 1;
    }
    None
}

/// Why the chessboard colouring leaves `p` without a solution, if it does
/// (`anchors`: the steps `p` fixes, [`anchors`]).
fn parity_conflict(p: &Puzzle, anchors: &[(usize, CellId)]) -> Option<String> {
    if p.variant.diagonal() {
        return None;
    }
    let colour = |c: CellId| colour(p, c);
    let (light, dark) = colour_counts(p);
    // The colour of the odd steps, and what fixed it.
    let mut odd: Option<(usize, String)> = match odd_colour((light, dark)) {
        Err(()) => {
            return Some(format!(
                "{light} light and {dark} dark open cells, but a path alternates colours"
            ))
        }
        Ok(None) => None,
        Ok(Some(0)) => Some((0, format!("{light} light cells against {dark}"))),
        Ok(Some(_)) => Some((1, format!("{dark} dark cells against {light}"))),
    };
    for &(k, c) in anchors {
        let on_odd = if k % 2 == 1 { colour(c) } else { 1 - colour(c) };
        match &odd {
            None => odd = Some((on_odd, format!("step {k} on cell {}", p.coord(c)))),
            Some((o, why)) if *o != on_odd => {
                return Some(format!(
                    "step {k} on cell {} is on the other colour than {why} allows",
                    p.coord(c)
                ))
            }
            Some(_) => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::parse;
    use crate::grid::strengthen::{add_no_path, cut_narrowed_windows};
    use crate::ir::{Expr, System};

    #[test]
    fn no_path_names_the_reason() {
        let reason = |text: &str| reason(&parse::parse(text).unwrap());
        // 3x3: five cells of the corners' colour, so the odd steps are on it.
        assert_eq!(reason("variant: numbrix\n1 . .\n. . .\n. . .\n"), None);
        assert!(reason("variant: numbrix\n. 1 .\n. . .\n. . .\n").is_some());
        assert_eq!(reason("variant: numbrix\n. 2 .\n. . .\n. . .\n"), None);
        // 2x2, equal colours: the first waypoint fixes the colour of the
        // last step, which the diagonal corner does not have.
        assert!(reason("variant: waypoint\n1 .\n. 2\n").is_some());
        assert_eq!(reason("variant: waypoint\n1 2\n. .\n"), None);
        assert_eq!(reason("variant: numbrix\n1 .\n. 3\n"), None);
        assert!(reason("variant: numbrix\n1 .\n. 4\n").is_some());
        // `1` and `3` two moves apart across the board: the rest of the
        // path cannot reach both sides; along the border it can.
        let why = reason("variant: numbrix\n. 3 . .\n. . . .\n. 1 . .\n").unwrap();
        assert!(why.contains("as few moves apart"), "{why}");
        assert_eq!(
            reason("variant: numbrix\n3 . . .\n. . . .\n1 . . .\n"),
            None
        );
        // Not the last step either way: both sides may have a walk.
        assert_eq!(
            reason("variant: numbrix\n. 4 . .\n. . . .\n. 2 . .\n"),
            None
        );
        // Two more cells of one colour: no path at all.
        let text = "X . . .\n. . . .\n. . . .\n. . . X\n";
        assert!(reason(&format!("variant: numbrix\n{text}")).is_some());
        assert_eq!(reason(&format!("variant: hidato\n{text}")), None);
        // Cut in two, king moves or not.
        let text = ". X .\n. X .\n";
        for v in ["numbrix", "hidato"] {
            let why = reason(&format!("variant: {v}\n{text}")).unwrap();
            assert!(why.contains("reaches 2 of the 4"), "{why}");
        }
        // Four cells with one neighbour; one, holding 2.
        let why = reason("variant: numbrix\n. X .\n. . .\nX . X\n. . .\n").unwrap();
        assert!(why.contains("and none is left"), "{why}");
        assert!(reason("variant: numbrix\n2 . .\n. X .\n. . .\n").is_none());
        let why = reason("variant: numbrix\n2 X X\n. . .\n. . .\n").unwrap();
        assert!(why.contains("but holds 2"), "{why}");
        // A reason becomes `INVAR FALSE`, no reason nothing.
        let p = parse::parse("variant: waypoint\n1 .\n. 2\n").unwrap();
        let mut sys = System::default();
        add_no_path(&p, &mut sys);
        assert_eq!(sys.invar.len(), 1);
        assert_eq!(sys.invar[0].expr, Expr::f());
        let p = parse::parse("variant: waypoint\n1 2\n. .\n").unwrap();
        add_no_path(&p, &mut sys);
        assert_eq!(sys.invar.len(), 1);
    }

    /// The solutions of `p`: every path from its first cell (any cell
    /// when it has none) through every open cell (depth-first), kept when
    /// the puzzle's own checker accepts it.
    fn all_paths(p: &Puzzle) -> Vec<Vec<CellId>> {
        fn go(p: &Puzzle, path: &mut Vec<CellId>, seen: &mut [bool], out: &mut Vec<Vec<CellId>>) {
            if path.len() == seen.len() {
                let coords = path.iter().map(|&c| p.coord(c)).collect();
                if crate::grid::check(p, &crate::grid::Solution { path: coords }).is_ok() {
                    out.push(path.clone());
                }
                return;
            }
            for d in p.neighbours(*path.last().unwrap()) {
                if !seen[d.index()] {
                    seen[d.index()] = true;
                    path.push(d);
                    go(p, path, seen, out);
                    path.pop();
                    seen[d.index()] = false;
                }
            }
        }
        let mut out = Vec::new();
        let starts = match p.start() {
            Some(c) => vec![c],
            None => (0..p.open_count() as u32).map(CellId).collect(),
        };
        for start in starts {
            let mut seen = vec![false; p.open_count()];
            seen[start.index()] = true;
            go(p, &mut vec![start], &mut seen, &mut out);
        }
        out
    }

    /// A board's rows as puzzle text: `mark(i)` for cell `i` (row by
    /// row), space separated.
    fn board_text<M: AsRef<str>>(rows: usize, cols: usize, mark: impl Fn(usize) -> M) -> String {
        (0..rows)
            .map(|r| {
                (0..cols)
                    .map(|c| mark(r * cols + c).as_ref().to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
                    + "\n"
            })
            .collect()
    }

    #[test]
    fn no_path_is_right_on_every_small_board() {
        // Every 3x3 and 2x4 board (each set of blocked cells), with `1` on
        // each open cell and nothing more, or with a second number on
        // each other cell: the last waypoint, or for numbrix and hidato
        // a step that depends on both cells. Wherever `no-path` says no,
        // no solution exists, and every solution keeps to the windows
        // (distances, colours, cuts).
        let (mut conflicts, mut paths) = (0, 0);
        for (rows, cols) in [(3, 3), (2, 4)] {
            let cells = rows * cols;
            for blocked in 0u32..1 << cells {
                let open: Vec<usize> = (0..cells).filter(|&i| blocked >> i & 1 == 0).collect();
                let n = open.len();
                for &a in &open {
                    for b in std::iter::once(None).chain(open.iter().copied().map(Some)) {
                        if b == Some(a) {
                            continue;
                        }
                        for variant in ["waypoint", "numbrix", "hidato"] {
                            let second = match (variant, b) {
                                ("waypoint", _) => "2".to_string(),
                                (_, Some(b)) => (2 + (a + b) % (n - 1)).to_string(),
                                _ => String::new(),
                            };
                            let mark = |i: usize| match i {
                                _ if blocked >> i & 1 == 1 => "X",
                                _ if i == a => "1",
                                _ if Some(i) == b => &second,
                                _ => ".",
                            };
                            let grid = board_text(rows, cols, mark);
                            let Ok(p) = parse::parse(&format!("variant: {variant}\n{grid}")) else {
                                continue;
                            };
                            let all = all_paths(&p);
                            let path = !all.is_empty();
                            let ok = cut_narrowed_windows(&p);
                            for steps in &all {
                                for (s, c) in steps.iter().enumerate() {
                                    let at = p.coord(*c);
                                    assert!(ok[c.index()][s + 1], "{variant}: {at} at step {} is a solution's, but not in its window:\n{grid}", s + 1);
                                }
                            }
                            if let Some(why) = reason(&p) {
                                assert!(!path, "{why}, but {variant} has a path:\n{grid}");
                                conflicts += 1;
                            }
                            paths += usize::from(path);
                        }
                    }
                }
            }
        }
        // The test looks at both kinds of board.
        assert!(
            conflicts > 1000 && paths > 1000,
            "{conflicts} conflicts, {paths} paths"
        );
    }

    /// Brute force against a no-path argument on one board: asserts that
    /// a board it names has no path; (1 if named, 1 if a path exists).
    fn tally(p: &Puzzle, grid: &str, why: Option<String>) -> (usize, usize) {
        tally_path(!all_paths(p).is_empty(), grid, why)
    }

    /// [`tally`] where whether the board has a path is known (`path`).
    fn tally_path(path: bool, grid: &str, why: Option<String>) -> (usize, usize) {
        if let Some(why) = &why {
            assert!(!path, "{why}, but the board has a path:\n{grid}");
        }
        (usize::from(why.is_some()), usize::from(path))
    }

    #[test]
    fn a_split_is_called_only_where_no_path_exists() {
        // Numbrix boards of 3x4, 4x4 and 3x5, open or with one blocked
        // cell, `1` (or the last step) on a border cell and the number
        // as many moves away on another border cell: wherever the split
        // is named, no solution exists; it is named on some boards, and
        // some boards with such a pair have solutions.
        let (mut named, mut solved) = (0, 0);
        for (rows, cols) in [(3, 4), (4, 4), (3, 5)] {
            let cells = rows * cols;
            for blocked in std::iter::once(None).chain((0..cells).map(Some)) {
                let open: Vec<usize> = (0..cells).filter(|&i| Some(i) != blocked).collect();
                let n = open.len();
                let border = |i: usize| {
                    let (r, c) = (i / cols, i % cols);
                    r == 0 || c == 0 || r + 1 == rows || c + 1 == cols
                };
                for &a in open.iter().filter(|&&a| border(a)) {
                    for &b in open.iter().filter(|&&b| b != a && border(b)) {
                        let d = (a / cols).abs_diff(b / cols) + (a % cols).abs_diff(b % cols);
                        for (ka, kb) in [(1, 1 + d), (n, n - d)] {
                            let mark = |i: usize| match i {
                                _ if Some(i) == blocked => "X".to_string(),
                                _ if i == a => ka.to_string(),
                                _ if i == b => kb.to_string(),
                                _ => ".".to_string(),
                            };
                            let grid = board_text(rows, cols, mark);
                            let p = parse::parse(&format!("variant: numbrix\n{grid}")).unwrap();
                            let (n, s) = tally(&p, &grid, split_conflict(&p, &anchors(&p)));
                            (named, solved) = (named + n, solved + s);
                        }
                    }
                }
            }
        }
        assert!(
            named > 100 && solved > 100,
            "{named} named, {solved} solved"
        );
    }

    #[test]
    fn a_pair_cut_by_distance_is_called_only_where_no_path_exists() {
        // Open numbrix and hidato boards of 2x5 and 3x4 with two
        // numbers on every two cells, at every two steps: wherever a cut
        // of two cells is named for its distances, no solution exists;
        // it is named on some boards, and others have solutions. The
        // paths of the blank board are found once and matched against
        // the numbers.
        let (mut named, mut solved) = (0, 0);
        for variant in ["numbrix", "hidato"] {
            for (rows, cols) in [(2, 5), (3, 4)] {
                let n = rows * cols;
                let blank = board_text(rows, cols, |_| ".");
                let p = parse::parse(&format!("variant: {variant}\n{blank}")).unwrap();
                let paths = all_paths(&p);
                // Cell ids by position on the board (row by row).
                let mut id = vec![0; n];
                for c in 0..n {
                    let at = p.coord(CellId(c as u32));
                    id[at.row * cols + at.col] = c;
                }
                for (a, b) in (0..n).flat_map(|a| (0..n).map(move |b| (a, b))) {
                    for (ka, kb) in (1..=n).flat_map(|ka| (ka + 1..=n).map(move |kb| (ka, kb))) {
                        if a == b {
                            continue;
                        }
                        let mark = |i: usize| match i {
                            _ if i == a => ka.to_string(),
                            _ if i == b => kb.to_string(),
                            _ => ".".to_string(),
                        };
                        let grid = board_text(rows, cols, mark);
                        let p = parse::parse(&format!("variant: {variant}\n{grid}")).unwrap();
                        let why = pair_cut_conflict(&p, &cuts::board(&p).graph, &anchors(&p))
                            .filter(|why| why.contains("steps from every number"));
                        let path = paths
                            .iter()
                            .any(|q| q[ka - 1].index() == id[a] && q[kb - 1].index() == id[b]);
                        let (x, y) = tally_path(path, &grid, why);
                        (named, solved) = (named + x, solved + y);
                    }
                }
            }
        }
        assert!(
            named > 1000 && solved > 1000,
            "{named} named, {solved} solved"
        );
    }

    #[test]
    fn a_leg_split_is_called_only_where_no_path_exists() {
        // Open 3x3 and 3x4 boards with four numbers on border cells, in
        // every placement: waypoints 1-4, and numbrix steps 1, 3, 6, 9
        // (3x4) or 1, 3, 5, 8 (3x3). Wherever the split is named no
        // solution exists; it is named on some boards, and some boards
        // with consecutive numbers on the border have solutions.
        let (mut named, mut solved) = (0, 0);
        for (variant, rows, cols, steps) in [
            ("waypoint", 3, 3, [1, 2, 3, 4]),
            ("waypoint", 3, 4, [1, 2, 3, 4]),
            ("numbrix", 3, 3, [1, 3, 5, 8]),
            ("numbrix", 3, 4, [1, 3, 6, 9]),
        ] {
            let cells = rows * cols;
            let border: Vec<usize> = (0..cells)
                .filter(|&i| {
                    let (r, c) = (i / cols, i % cols);
                    r == 0 || c == 0 || r + 1 == rows || c + 1 == cols
                })
                .collect();
            for &a in &border {
                for &b in border.iter().filter(|&&b| b != a) {
                    for &x in border.iter().filter(|&&x| x != a && x != b) {
                        for &y in border.iter().filter(|&&y| ![a, b, x].contains(&y)) {
                            let mark = |i: usize| match [a, b, x, y].iter().position(|&m| m == i) {
                                Some(k) => steps[k].to_string(),
                                None => ".".to_string(),
                            };
                            let grid = board_text(rows, cols, mark);
                            let p = parse::parse(&format!("variant: {variant}\n{grid}")).unwrap();
                            let (n, s) = tally(&p, &grid, leg_split_conflict(&p));
                            (named, solved) = (named + n, solved + s);
                        }
                    }
                }
            }
        }
        assert!(
            named > 1000 && solved > 100,
            "{named} named, {solved} solved"
        );
    }
}
