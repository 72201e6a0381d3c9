//! Cuts of the board: the cells, one or two, whose removal splits the
//! open cells into parts, and what they say about the steps of a path
//! through every open cell.
//!
//! Input: the adjacency of a board's open cells (connected), the steps
//! the puzzle fixes (anchors: given numbers, or the first and last
//! waypoint) and, optionally, the steps each cell was already found to
//! be possible at. Output: per cut, the steps its cells and the cells of
//! each part can still have ([`fit`]), or the cut that leaves no path at
//! all.
//!
//! Why it holds: the path visits each cut cell once, and between those
//! visits it stays in one part (a move never joins two parts), so its
//! steps fall into at most three intervals (before the first cut cell,
//! between the two, after the second), each a walk inside one part, and
//! each part is the union of its intervals. So the part sizes fix the
//! lengths, every anchor must fall in an interval of its own part, and an
//! interval must end next to the cut cells it runs between. A CDCL solver
//! finds none of this by itself: on a 4x40 hidato with a two-cell neck
//! and three numbers that fit no order through it, neither of `solve`'s
//! models was decided within 10 s (CaDiCaL neither within 120 s); with
//! this it is `unsat` at once.
//!
//! Invariant: every step the output rules out is ruled out for every
//! path through all open cells that meets the anchors (and the input
//! windows); a cut of one cell is also a part of the cuts of two that
//! contain it, which are left out (they add little and cost a pass each).

use super::{CellId, Coord, Puzzle};

/// A cut of one or two open cells and the parts it leaves.
pub(super) struct Cut {
    pub cells: Vec<CellId>,
    /// Each open cell's part, `None` on the cut's own cells.
    part: Vec<Option<u32>>,
    sizes: Vec<usize>,
    /// `touches[j][i]`: part `j` has a cell next to `cells[i]`.
    touches: Vec<Vec<bool>>,
    /// The two cells of a cut of two are next to each other.
    adjacent: bool,
}

impl Cut {
    fn new(adj: &[Vec<CellId>], cells: Vec<CellId>) -> Cut {
        let (part, sizes) = parts_without(adj, &cells);
        let touches = (0..sizes.len() as u32)
            .map(|j| {
                cells
                    .iter()
                    .map(|c| adj[c.index()].iter().any(|d| part[d.index()] == Some(j)))
                    .collect()
            })
            .collect();
        let adjacent = match cells[..] {
            [a, b] => adj[a.index()].contains(&b),
            _ => false,
        };
        Cut {
            cells,
            part,
            sizes,
            touches,
            adjacent,
        }
    }

    /// How many parts the cut leaves.
    pub fn parts(&self) -> usize {
        self.sizes.len()
    }

    /// The part of a cell not on the cut.
    pub fn part_of(&self, c: CellId) -> u32 {
        self.part[c.index()].unwrap_or(u32::MAX)
    }

    /// The part sizes, for messages.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }
}

/// Every cut of one cell, then every cut of two cells neither of which is
/// a cut alone: one depth-first search (Tarjan's low points) per cell on
/// the border of the board (next to a blocked cell or the edge, diagonals
/// included), `O(border * edges)`. A cell whose eight surrounding cells
/// are all open is in no cut of two: they form a cycle of moves (either
/// kind) through all its neighbours, which stays connected without any
/// one cell, so removing it as well disconnects nothing.
pub(super) fn cuts(p: &Puzzle, adj: &[Vec<CellId>]) -> Vec<Cut> {
    let single = cut_cells(adj, None);
    let mut out: Vec<Cut> = (0..adj.len())
        .filter(|&a| single[a])
        .map(|a| Cut::new(adj, vec![CellId(a as u32)]))
        .collect();
    out.extend(pairs(p, adj, &single));
    out
}

/// The cuts of two cells of [`cuts`], given the cuts of one (`single`,
/// from [`cut_cells`]).
pub(super) fn pairs(p: &Puzzle, adj: &[Vec<CellId>], single: &[bool]) -> Vec<Cut> {
    let n = adj.len();
    let border: Vec<bool> = (0..n as u32).map(|c| on_border(p, CellId(c))).collect();
    let mut tarjan = Tarjan::new(n);
    let mut out = Vec::new();
    for a in (0..n).filter(|&a| border[a] && !single[a]) {
        tarjan.run(adj, Some(a));
        let with_a = &tarjan.cut;
        for b in (a + 1..n).filter(|&b| with_a[b] && border[b] && !single[b]) {
            out.push(Cut::new(adj, vec![CellId(a as u32), CellId(b as u32)]));
        }
    }
    out
}

/// Whether one of the eight cells around `c` is blocked or off the board.
fn on_border(p: &Puzzle, c: CellId) -> bool {
    let at = p.coord(c);
    let open = |dr: isize, dc: isize| {
        let (Some(row), Some(col)) = (at.row.checked_add_signed(dr), at.col.checked_add_signed(dc))
        else {
            return false;
        };
        row < p.rows() && col < p.cols() && p.cell_id(Coord { row, col }).is_some()
    };
    let around = [
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ];
    !around.iter().all(|&(dr, dc)| open(dr, dc))
}

/// The cells whose removal disconnects the board without `removed` (which
/// must leave it connected): one flag per cell ([`Tarjan::run`]).
pub(super) fn cut_cells(adj: &[Vec<CellId>], removed: Option<usize>) -> Vec<bool> {
    let mut t = Tarjan::new(adj.len());
    t.run(adj, removed);
    t.cut
}

/// Tarjan's depth-first search with low points, iterative, with its
/// buffers kept from one run to the next (the cuts of two run it once per
/// border cell).
struct Tarjan {
    order: Vec<u32>,
    low: Vec<u32>,
    cut: Vec<bool>,
    /// (cell, parent, index of the next neighbour to look at)
    stack: Vec<(u32, u32, u32)>,
}

impl Tarjan {
    fn new(n: usize) -> Tarjan {
        Tarjan {
            order: vec![u32::MAX; n],
            low: vec![0; n],
            cut: vec![false; n],
            stack: Vec::with_capacity(n),
        }
    }

    /// Sets `cut` to the cut cells of the board without `removed`.
    fn run(&mut self, adj: &[Vec<CellId>], removed: Option<usize>) {
        const NONE: u32 = u32::MAX;
        let n = adj.len();
        self.cut.fill(false);
        self.order.fill(NONE);
        let removed = removed.map_or(NONE, |r| r as u32);
        let Some(root) = (0..n as u32).find(|&c| c != removed) else {
            return;
        };
        let (order, low) = (&mut self.order, &mut self.low);
        let mut next = 0;
        self.stack.clear();
        self.stack.push((root, NONE, 0));
        order[root as usize] = next;
        low[root as usize] = next;
        let mut root_children = 0;
        while let Some(&mut (v, parent, ref mut i)) = self.stack.last_mut() {
            if let Some(&w) = adj[v as usize].get(*i as usize) {
                *i += 1;
                let w = w.0;
                if w == removed {
                    continue;
                }
                if order[w as usize] == NONE {
                    next += 1;
                    order[w as usize] = next;
                    low[w as usize] = next;
                    root_children += u32::from(v == root);
                    self.stack.push((w, v, 0));
                } else if w != parent {
                    low[v as usize] = low[v as usize].min(order[w as usize]);
                }
                continue;
            }
            self.stack.pop();
            if parent != NONE {
                let (p, v) = (parent as usize, v as usize);
                low[p] = low[p].min(low[v]);
                if parent != root && low[v] >= order[p] {
                    self.cut[p] = true;
                }
            }
        }
        self.cut[root as usize] = root_children > 1;
    }
}

/// The parts of the board without the cells `cut`: each cell's part
/// (`None` on `cut`) and each part's size.
pub(super) fn parts_without(adj: &[Vec<CellId>], cut: &[CellId]) -> (Vec<Option<u32>>, Vec<usize>) {
    let mut part: Vec<Option<u32>> = vec![None; adj.len()];
    let mut sizes = Vec::new();
    let starts = cut.iter().flat_map(|a| &adj[a.index()]);
    for &s in starts {
        if part[s.index()].is_some() || cut.contains(&s) {
            continue;
        }
        let id = sizes.len() as u32;
        part[s.index()] = Some(id);
        let mut queue = vec![s];
        let mut size = 0;
        while let Some(c) = queue.pop() {
            size += 1;
            for &d in &adj[c.index()] {
                if !cut.contains(&d) && part[d.index()].is_none() {
                    part[d.index()] = Some(id);
                    queue.push(d);
                }
            }
        }
        sizes.push(size);
    }
    (part, sizes)
}

/// The steps a cut leaves: `cells[i][s]` for its `i`-th cell,
/// `parts[j][s]` for every cell of part `j` (index 0 unused).
pub(super) struct Fit {
    pub cells: Vec<Vec<bool>>,
    pub parts: Vec<Vec<bool>>,
}

/// What the steps must meet: the anchors and, if known, each cell's
/// possible steps (`ok[c][s]`).
pub(super) struct Known<'a> {
    pub n: usize,
    pub anchors: &'a [(usize, CellId)],
    pub ok: Option<&'a [Vec<bool>]>,
}

impl Known<'_> {
    /// Whether cell `c` can be at step `s` as far as the anchors (and the
    /// windows) tell.
    fn allows(&self, c: CellId, s: usize) -> bool {
        let anchored = self.anchors.iter().all(|&(k, at)| (at == c) == (k == s));
        anchored && self.ok.is_none_or(|ok| ok[c.index()][s])
    }
}

/// The steps left by every way the path can pass `cut` (see the module
/// docs): `None` when no way fits, so there is no path.
pub(super) fn fit(cut: &Cut, known: &Known) -> Option<Fit> {
    let ways = search(cut, known, false);
    ways.any.then(|| ways.finish())
}

/// Whether some way of passing `cut` fits ([`fit`] without the steps:
/// it stops at the first).
pub(super) fn fits(cut: &Cut, known: &Known) -> bool {
    search(cut, known, true).any
}

/// Tries the ways of passing `cut` (all of them, or up to the first that
/// fits when `first`).
fn search<'c, 'k>(cut: &'c Cut, known: &'c Known<'k>, first: bool) -> Ways<'c, 'k> {
    let n = known.n;
    let m = cut.parts();
    // The anchors of each part up to each step: `below[j][s]` of them at
    // steps `<= s`.
    let mut below = vec![vec![0u32; n + 1]; m];
    for &(k, c) in known.anchors {
        if let Some(j) = cut.part[c.index()] {
            below[j as usize][k] += 1;
        }
    }
    for row in &mut below {
        for s in 1..=n {
            row[s] += row[s - 1];
        }
    }
    let mut ways = Ways {
        cut,
        known,
        below,
        cells: vec![vec![false; if first { 0 } else { n + 1 }]; cut.cells.len()],
        // Per part, +1 where a fitting interval starts, -1 past its end.
        starts: vec![vec![0i64; if first { 0 } else { n + 2 }]; m],
        any: false,
        first,
    };
    let sizes = &cut.sizes;
    match (cut.cells.len(), m) {
        (1, 2) => {
            for x in 0..2u32 {
                ways.try_way(&[0], &[sizes[x as usize] + 1], &[x, 1 - x]);
            }
        }
        (2, 2) => {
            for order in [[0, 1], [1, 0]] {
                for x in 0..2u32 {
                    let (lx, y) = (sizes[x as usize], 1 - x);
                    // Part x holds the walk before the cut, between its
                    // cells, or after it; part y the other two.
                    for g in lx + 2..=n {
                        ways.try_way(&order, &[lx + 1, g], &[x, y, y]);
                    }
                    for f in 1..n.saturating_sub(lx) {
                        ways.try_way(&order, &[f, f + lx + 1], &[y, x, y]);
                    }
                    for f in 1..n.saturating_sub(lx) {
                        ways.try_way(&order, &[f, n - lx], &[y, y, x]);
                    }
                }
            }
        }
        (2, 3) => {
            for order in [[0, 1], [1, 0]] {
                for perm in [
                    [0, 1, 2],
                    [0, 2, 1],
                    [1, 0, 2],
                    [1, 2, 0],
                    [2, 0, 1],
                    [2, 1, 0],
                ] {
                    let f = sizes[perm[0] as usize] + 1;
                    ways.try_way(&order, &[f, f + sizes[perm[1] as usize] + 1], &perm);
                }
            }
        }
        // One cut cell and three parts, or two and four: the path joins
        // two parts per cut cell at most.
        _ => {}
    }
    ways
}

/// The ways of passing a cut found to fit so far (see [`fit`]).
struct Ways<'c, 'k> {
    cut: &'c Cut,
    known: &'c Known<'k>,
    below: Vec<Vec<u32>>,
    cells: Vec<Vec<bool>>,
    starts: Vec<Vec<i64>>,
    any: bool,
    /// Stop at the first way that fits, recording nothing.
    first: bool,
}

impl Ways<'_, '_> {
    /// One way: the cut's cells in the visit order `order` at `steps`
    /// (increasing), the walks before, between and after them in the
    /// parts `walks` (one per walk; an empty walk's part is not looked at).
    /// Records its steps if it fits.
    fn try_way(&mut self, order: &[usize], steps: &[usize], walks: &[u32]) {
        let n = self.known.n;
        if self.first && self.any {
            return;
        }
        if steps.windows(2).any(|w| w[0] >= w[1]) || steps.iter().any(|&s| s == 0 || s > n) {
            return;
        }
        // The walks as step intervals `lo..=hi` (empty when lo > hi).
        let mut bounds = [(0, 0); 3];
        let mut lo = 1;
        for (b, &s) in bounds.iter_mut().zip(steps) {
            *b = (lo, s - 1);
            lo = s + 1;
        }
        bounds[steps.len()] = (lo, n);
        let bounds = &bounds[..=steps.len()];
        // Cells and anchors per part, at most three parts.
        let mut size = [0; 3];
        let mut anchors = [0; 3];
        for (w, (&(lo, hi), &j)) in bounds.iter().zip(walks).enumerate() {
            if lo > hi {
                // An empty walk between the cut cells: they are adjacent.
                if w > 0 && w < steps.len() && !self.cut.adjacent {
                    return;
                }
                continue;
            }
            let j = j as usize;
            // A walk ends next to the cut cells before and after it.
            let touches = &self.cut.touches[j];
            if (w > 0 && !touches[order[w - 1]]) || (w < steps.len() && !touches[order[w]]) {
                return;
            }
            size[j] += hi + 1 - lo;
            anchors[j] += self.below[j][hi] - self.below[j][lo - 1];
        }
        let m = self.cut.parts();
        if (0..m).any(|j| size[j] != self.cut.sizes[j] || anchors[j] != self.below[j][n]) {
            return;
        }
        let cells = &self.cut.cells;
        if order
            .iter()
            .zip(steps)
            .any(|(&i, &s)| !self.known.allows(cells[i], s))
        {
            return;
        }
        self.any = true;
        if self.first {
            return;
        }
        for (&i, &s) in order.iter().zip(steps) {
            self.cells[i][s] = true;
        }
        for (&(lo, hi), &j) in bounds.iter().zip(walks) {
            if lo <= hi {
                self.starts[j as usize][lo] += 1;
                self.starts[j as usize][hi + 1] -= 1;
            }
        }
    }

    fn finish(self) -> Fit {
        let parts = self
            .starts
            .into_iter()
            .map(|row| {
                let mut open = 0;
                let mut out: Vec<bool> = row[..row.len() - 1]
                    .iter()
                    .map(|d| {
                        open += d;
                        open > 0
                    })
                    .collect();
                out[0] = false;
                out
            })
            .collect();
        Fit {
            cells: self.cells,
            parts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::parse;

    fn adjacency(p: &Puzzle) -> Vec<Vec<CellId>> {
        (0..p.open_count() as u32)
            .map(|c| p.neighbours(CellId(c)))
            .collect()
    }

    fn id(p: &Puzzle, row: usize, col: usize) -> CellId {
        (0..p.open_count() as u32)
            .map(CellId)
            .find(|&c| p.coord(c) == Coord { row, col })
            .unwrap()
    }

    /// What a board of `n` cells with `anchors` and no windows tells.
    fn no_windows(n: usize, anchors: &[(usize, CellId)]) -> Known<'_> {
        Known {
            n,
            anchors,
            ok: None,
        }
    }

    fn steps(row: &[bool]) -> Vec<usize> {
        (1..row.len()).filter(|&s| row[s]).collect()
    }

    /// 3x5 hidato with a wall in the middle of column 2: the cells above
    /// and below it are the only ways between the two halves.
    const NECK: &str = "variant: hidato\n. . . . .\n. . X . .\n. . . . .\n";

    #[test]
    fn finds_the_cuts_of_one_and_two_cells() {
        let p = parse::parse(NECK).unwrap();
        let adj = adjacency(&p);
        let found: Vec<Vec<CellId>> = cuts(&p, &adj).into_iter().map(|c| c.cells).collect();
        assert_eq!(found, [vec![id(&p, 0, 2), id(&p, 2, 2)]]);
        // A 1x4 strip: its two inner cells cut it (and the pairs with
        // one of them are left out).
        let p = parse::parse("variant: numbrix\n. . . .\n").unwrap();
        let cut = cuts(&p, &adjacency(&p));
        assert_eq!(cut.len(), 2);
        assert!(cut.iter().all(|c| c.cells.len() == 1 && c.parts() == 2));
    }

    #[test]
    fn a_walk_out_and_back_through_a_neck_fixes_its_steps() {
        // 1 and 14 on the left: the path leaves the left half through one
        // neck cell at step f (2..=6), walks the right half's 6 cells and
        // comes back through the other at f + 7.
        let p = parse::parse(NECK).unwrap();
        let adj = adjacency(&p);
        let anchors = [(1, id(&p, 1, 0)), (14, id(&p, 1, 1))];
        let known = no_windows(adj.len(), &anchors);
        let cut = cuts(&p, &adj).pop().unwrap();
        let fit = fit(&cut, &known).unwrap();
        let neck: Vec<usize> = (2..=6).chain(9..=13).collect();
        assert_eq!(steps(&fit.cells[0]), neck);
        assert_eq!(steps(&fit.cells[1]), neck);
        let right = cut.part_of(id(&p, 1, 4)) as usize;
        assert_eq!(steps(&fit.parts[right]), (3..=12).collect::<Vec<_>>());
        let left: Vec<usize> = (1..=5).chain(10..=14).collect();
        assert_eq!(steps(&fit.parts[1 - right]), left);
    }

    #[test]
    fn numbers_that_fit_no_way_through_a_neck_leave_no_path() {
        // Step 1 on the left and 2 on the right: the walk before the neck
        // holds step 1 only if the neck comes at step 2 or later.
        let p = parse::parse(NECK).unwrap();
        let adj = adjacency(&p);
        let anchors = [(1, id(&p, 1, 0)), (2, id(&p, 1, 3))];
        let known = no_windows(adj.len(), &anchors);
        assert!(fit(&cuts(&p, &adj)[0], &known).is_none());
        // A cell with four parts around it (a cut of one).
        let p = parse::parse("variant: numbrix\nX . X\n. . .\nX . X\n. . .\n").unwrap();
        let adj = adjacency(&p);
        let known = no_windows(adj.len(), &[]);
        assert!(cuts(&p, &adj).iter().any(|c| fit(c, &known).is_none()));
    }
}
