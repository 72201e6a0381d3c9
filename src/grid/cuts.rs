//! Cuts of the board: the cells, one or two, whose removal splits the
//! open cells into parts, and what they say about the steps of a path
//! through every open cell.
//!
//! Input: the moves between a board's open cells ([`Graph`]), the steps
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

use std::sync::OnceLock;

use super::{CellId, Coord, Puzzle};

/// The moves between the open cells as one flat list by cell id
/// (compressed sparse rows). The cuts of two cells search the whole board
/// once per border cell, and a search reads every cell's moves: from one
/// list instead of a vector per cell, and with the search's state in
/// locals ([`Tarjan::run`]), finding them took 0.54M instructions instead
/// of 1.22M on a 9x9 hidato (0.36M instead of 0.83M on a 9x9 numbrix).
/// The vertices are the open cells by id, or in a [`Graph::merged`]
/// graph, the cells kept and the groups of the others.
pub(super) struct Graph {
    /// Vertex `v`'s neighbours are `next[first[v]..first[v + 1]]`.
    first: Vec<u32>,
    /// Each vertex's neighbours in turn; a cell's in increasing id order
    /// (as [`Puzzle::neighbours`] gives them).
    next: Vec<u32>,
}

impl Graph {
    /// The moves of `p` (without a vector per cell).
    pub fn new(p: &Puzzle) -> Graph {
        let n = p.open_count();
        let diagonal = p.variant.diagonal();
        let mut first = Vec::with_capacity(n + 1);
        let mut next = Vec::with_capacity(n * if diagonal { 8 } else { 4 });
        first.push(0);
        for &at in p.open_cells() {
            let start = next.len();
            for row in at.row.saturating_sub(1)..=at.row + 1 {
                for col in at.col.saturating_sub(1)..=at.col + 1 {
                    let other = Coord { row, col };
                    if at.adjacent(other, diagonal) {
                        next.extend(p.cell_id(other).map(|c| c.0));
                    }
                }
            }
            next[start..].sort_unstable();
            first.push(next.len() as u32);
        }
        Graph { first, next }
    }

    /// How many vertices (open cells, on a board's graph).
    pub fn len(&self) -> usize {
        self.first.len() - 1
    }

    /// The neighbours of cell `c`, in increasing id order.
    pub fn neighbours(&self, c: CellId) -> impl ExactSizeIterator<Item = CellId> + '_ {
        self.moves(c.index()).iter().map(|&d| CellId(d))
    }

    /// The neighbours of vertex `v`.
    fn moves(&self, v: usize) -> &[u32] {
        &self.next[self.first[v] as usize..self.first[v + 1] as usize]
    }

    /// This graph with each connected group of the cells not in `keep`
    /// merged into one vertex, and the vertex of each cell: the cells
    /// kept are vertices `0..` in order, the groups follow. Removing
    /// kept cells disconnects the merged graph exactly when it
    /// disconnects this one, as each group stays connected, and a search
    /// through it reads fewer moves: the 23 cells inside a 9x9 hidato
    /// without a blocked cell around them are one vertex, 464 moves
    /// become 274.
    fn merged(&self, keep: &[bool]) -> (Graph, Vec<u32>) {
        const NONE: u32 = u32::MAX;
        let n = self.len();
        let mut vertex = vec![NONE; n];
        // The cells of each vertex, vertex by vertex: `cells[starts[v]..starts[v + 1]]`.
        let mut cells: Vec<u32> = (0..n as u32).filter(|&c| keep[c as usize]).collect();
        for (v, &c) in cells.iter().enumerate() {
            vertex[c as usize] = v as u32;
        }
        let mut starts: Vec<u32> = (0..=cells.len() as u32).collect();
        for c in 0..n {
            if vertex[c] != NONE {
                continue;
            }
            let v = starts.len() as u32 - 1;
            let mut i = cells.len();
            vertex[c] = v;
            cells.push(c as u32);
            while let Some(&x) = cells.get(i) {
                i += 1;
                for &d in self.moves(x as usize) {
                    if vertex[d as usize] == NONE {
                        vertex[d as usize] = v;
                        cells.push(d);
                    }
                }
            }
            starts.push(cells.len() as u32);
        }
        let count = starts.len() - 1;
        let mut first = Vec::with_capacity(count + 1);
        first.push(0);
        let mut next = Vec::with_capacity(self.next.len());
        // The vertex whose moves were listed last that has a move to each.
        let mut listed_by = vec![NONE; count];
        for v in 0..count as u32 {
            let members = &cells[starts[v as usize] as usize..starts[v as usize + 1] as usize];
            for &c in members {
                for &d in self.moves(c as usize) {
                    let w = vertex[d as usize];
                    if w != v && listed_by[w as usize] != v {
                        listed_by[w as usize] = v;
                        next.push(w);
                    }
                }
            }
            first.push(next.len() as u32);
        }
        (Graph { first, next }, vertex)
    }
}

/// A cut of one or two open cells and the parts it leaves.
#[derive(Default)]
pub(super) struct Cut {
    pub cells: Vec<CellId>,
    /// Each open cell's part: [`NO_PART`] on the cut's own cells (and, on
    /// a board in pieces, on the cells its parts do not reach).
    part: Vec<u32>,
    sizes: Vec<usize>,
    /// `touches[j][i]`: part `j` has a cell next to `cells[i]`.
    touches: Vec<[bool; 2]>,
    /// The two cells of a cut of two are next to each other.
    adjacent: bool,
    /// A buffer for the search of the parts.
    stack: Vec<CellId>,
}

/// The part of a cell in no part (see [`Cut::part`]).
const NO_PART: u32 = u32::MAX;

impl Cut {
    /// The cut of `cells` (one or two): the parts of the board without
    /// them that their neighbours are in, numbered in the order the
    /// cells' neighbours (in turn, in id order) meet them.
    pub fn new(g: &Graph, cells: &[CellId]) -> Cut {
        let mut cut = Cut::default();
        cut.set(g, cells);
        cut
    }

    /// Makes this the cut of `cells` ([`Cut::new`]) in the buffers of the
    /// cut it was: the cuts of two are looked at one after the other, and
    /// allocating each afresh cost 1.4K instructions a cut on a 9x9 board
    /// (the search of its parts, 5K).
    pub fn set(&mut self, g: &Graph, cells: &[CellId]) {
        // Marks the cut's own cells while the parts are searched.
        const ON_CUT: u32 = NO_PART - 1;
        self.cells.clear();
        self.cells.extend_from_slice(cells);
        self.part.clear();
        self.part.resize(g.len(), NO_PART);
        self.sizes.clear();
        self.touches.clear();
        for c in cells {
            self.part[c.index()] = ON_CUT;
        }
        for (i, &c) in cells.iter().enumerate() {
            for s in g.neighbours(c) {
                let j = match self.part[s.index()] {
                    ON_CUT => continue,
                    NO_PART => {
                        let j = self.sizes.len() as u32;
                        let size = fill_part(g, &mut self.part, &mut self.stack, s, j);
                        self.sizes.push(size);
                        self.touches.push([false; 2]);
                        j
                    }
                    j => j,
                };
                self.touches[j as usize][i] = true;
            }
        }
        for c in cells {
            self.part[c.index()] = NO_PART;
        }
        self.adjacent = match *cells {
            [a, b] => g.neighbours(a).any(|d| d == b),
            _ => false,
        };
    }

    /// How many parts the cut leaves.
    pub fn parts(&self) -> usize {
        self.sizes.len()
    }

    /// The part of a cell not on the cut.
    pub fn part_of(&self, c: CellId) -> u32 {
        self.part[c.index()]
    }

    /// The part sizes, for messages.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }
}

/// Puts `start` and every cell it reaches through cells in [`NO_PART`]
/// into part `j`; returns how many. `stack`: a buffer, left empty.
fn fill_part(g: &Graph, part: &mut [u32], stack: &mut Vec<CellId>, start: CellId, j: u32) -> usize {
    part[start.index()] = j;
    stack.push(start);
    let mut size = 0;
    while let Some(c) = stack.pop() {
        size += 1;
        for d in g.neighbours(c) {
            if part[d.index()] == NO_PART {
                part[d.index()] = j;
                stack.push(d);
            }
        }
    }
    size
}

/// The board's own graph and what [`no_path::reason`](super::no_path::reason)
/// and [`cut_steps`](super::strengthen::cut_steps) both read of it, worked
/// out once per puzzle ([`board`]): they depend on the open cells only,
/// and the cuts of two took 2% of a 9x9 hidato's `solve` each time.
pub(super) struct Board {
    pub graph: Graph,
    /// The cut cells and how many cells cell 0 reaches ([`cut_cells`]).
    pub single: Vec<bool>,
    pub reached: usize,
    /// [`pairs`], on first use.
    pairs: OnceLock<Vec<[CellId; 2]>>,
}

impl Board {
    /// The cuts of two cells neither of which is a cut alone ([`pairs`]).
    pub fn pairs(&self, p: &Puzzle) -> &[[CellId; 2]] {
        self.pairs
            .get_or_init(|| pairs(p, &self.graph, &self.single))
    }
}

/// `p`'s [`Board`], worked out on first use (a puzzle never changes).
pub(super) fn board(p: &Puzzle) -> &Board {
    p.cuts.0.get_or_init(|| {
        let graph = Graph::new(p);
        let (single, reached) = cut_cells(&graph);
        Board {
            graph,
            single,
            reached,
            pairs: OnceLock::new(),
        }
    })
}

/// Every cut of one cell, then every cut of two cells neither of which is
/// a cut alone ([`Board::pairs`]), on the board's own graph (the board
/// connected; else the cuts of cell 0's piece).
pub(super) fn cuts(p: &Puzzle) -> Vec<Cut> {
    let b = board(p);
    let g = &b.graph;
    let mut out: Vec<Cut> = (0..g.len() as u32)
        .map(CellId)
        .filter(|c| b.single[c.index()])
        .map(|c| Cut::new(g, &[c]))
        .collect();
    out.extend(b.pairs(p).iter().map(|pair| Cut::new(g, pair)));
    out
}

/// The cuts of two cells neither of which is a cut alone (`single`, from
/// [`cut_cells`]), as pairs `[a, b]` with `a < b`, in increasing order:
/// one depth-first search (Tarjan's low points) per cell on the border of
/// the board (next to a blocked cell or the edge, diagonals included),
/// `O(border * edges)`. A cell whose eight surrounding cells are all open
/// is in no cut of two: they form a cycle of moves (either kind) through
/// all its neighbours, which stays connected without any one cell, so
/// removing it as well disconnects nothing. The searches run on the
/// board with the cells that are in no cut of two merged
/// ([`Graph::merged`]), and with those whose pairs are known merged as
/// well, from time to time ([`MERGE_AGAIN`]).
pub(super) fn pairs(p: &Puzzle, g: &Graph, single: &[bool]) -> Vec<[CellId; 2]> {
    let n = g.len();
    let border: Vec<usize> = (0..n)
        .filter(|&c| !single[c] && on_border(p, CellId(c as u32)))
        .collect();
    let mut vertex: Vec<u32> = (0..n as u32).collect();
    let mut merged = merge_all_but(g, &mut vertex, &border);
    // Where the cells kept in `merged` start in `border`.
    let mut from = 0;
    let mut tarjan = Tarjan::new(merged.len());
    let mut out = Vec::new();
    for (i, &a) in border.iter().enumerate() {
        let later = &border[i + 1..];
        if later.is_empty() {
            break;
        }
        // The pairs of the cells before `a` are known: once they are a
        // large enough share of the cells kept, they are merged too.
        if MERGE_AGAIN * (i - from) >= border.len() - from {
            merged = merge_all_but(&merged, &mut vertex, &border[i..]);
            from = i;
        }
        // From the first other cell, as [`cut_cells`] does (on a board
        // in pieces, the cuts of that cell's piece).
        let root = vertex[usize::from(a == 0)];
        tarjan.run(&merged, root as usize, Some(vertex[a] as usize));
        let with_a = later.iter().filter(|&&b| tarjan.cut[vertex[b] as usize]);
        out.extend(with_a.map(|&b| [CellId(a as u32), CellId(b as u32)]));
    }
    out
}

/// [`pairs`] merges the cells it is done with again when they are
/// `1 / MERGE_AGAIN` of those kept. Each merging costs about a search;
/// no_path::reason, callgrind, merging once -> 2 -> 3 -> 4: 9x9 numbrix
/// 505K -> 460K -> 465K -> 476K instructions, hidato 487K -> 407K ->
/// 407K -> 417K, waypoint 573K -> 511K -> 519K -> 534K; 15x15 numbrix
/// 2.91M -> 2.35M -> 2.28M -> 2.28M, hidato (two calls) 4.80M -> 3.53M
/// -> 3.35M -> 3.34M.
const MERGE_AGAIN: usize = 2;

/// `graph`, where cell `c` is vertex `vertex[c]`, with everything but the
/// vertices of `cells` merged ([`Graph::merged`]); `vertex` follows.
fn merge_all_but(graph: &Graph, vertex: &mut [u32], cells: &[usize]) -> Graph {
    let mut keep = vec![false; graph.len()];
    for &c in cells {
        keep[vertex[c] as usize] = true;
    }
    let (merged, to) = graph.merged(&keep);
    for v in vertex.iter_mut() {
        *v = to[*v as usize];
    }
    merged
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

/// The cells whose removal disconnects the board (one flag per cell), and
/// how many cells cell 0 reaches: when that is not all, the flags are
/// those of cell 0's piece of the board ([`Tarjan::run`]).
pub(super) fn cut_cells(g: &Graph) -> (Vec<bool>, usize) {
    let mut t = Tarjan::new(g.len());
    let reached = if g.len() == 0 { 0 } else { t.run(g, 0, None) };
    (t.cut, reached)
}

/// Tarjan's depth-first search with low points, iterative, with its
/// buffers kept from one run to the next (the cuts of two run it once per
/// border cell).
struct Tarjan {
    /// Each vertex's place in the search order: [`UNSEEN`] before the
    /// search reaches it, [`REMOVED`] on the vertex left out.
    order: Vec<u32>,
    cut: Vec<bool>,
    /// The vertices the search is inside of, from the root: each with its
    /// low point so far and the place of its next move in [`Graph::next`].
    stack: Vec<(u32, u32, u32)>,
}

/// The order of a vertex the search has not reached.
const UNSEEN: u32 = u32::MAX;
/// The order of the vertex left out: seen already, so the search does
/// not enter it, and later than every vertex, so it lowers no low point.
const REMOVED: u32 = u32::MAX - 1;

impl Tarjan {
    fn new(n: usize) -> Tarjan {
        Tarjan {
            order: vec![UNSEEN; n],
            cut: vec![false; n],
            stack: Vec::with_capacity(n),
        }
    }

    /// Sets `cut` to the cut vertices of the graph without `removed`, in
    /// the piece of `root`; returns how many vertices that piece has. A move
    /// back to the parent lowers the low point to the parent's order,
    /// which changes no verdict (a vertex is a cut when a child's low
    /// point is not below the vertex's own order), so the search need not
    /// know the parent of a vertex until it leaves it.
    fn run(&mut self, g: &Graph, root: usize, removed: Option<usize>) -> usize {
        // Slices, so that their starts and lengths stay in registers.
        let n = g.len();
        let (order, cut, stack) = (&mut self.order[..n], &mut self.cut[..n], &mut self.stack);
        cut.fill(false);
        order.fill(UNSEEN);
        if let Some(r) = removed {
            order[r] = REMOVED;
        }
        let (first, next) = (&g.first[..], &g.next[..]);
        stack.clear();
        // The vertex searched, its low point, and its next and last move.
        let (mut v, mut low) = (root, 0);
        let (mut e, mut end) = (first[v], first[v + 1]);
        order[root] = 0;
        let mut seen = 1;
        let mut root_children = 0;
        loop {
            if e < end {
                let w = next[e as usize] as usize;
                e += 1;
                match order[w] {
                    UNSEEN => {
                        stack.push((v as u32, low, e));
                        order[w] = seen;
                        (v, low) = (w, seen);
                        (e, end) = (first[w], first[w + 1]);
                        seen += 1;
                    }
                    o => low = low.min(o),
                }
                continue;
            }
            // `v` is done: nothing below it reaches above its parent
            // unless its low point does.
            let Some((parent, parent_low, parent_e)) = stack.pop() else {
                break;
            };
            let parent = parent as usize;
            if parent == root {
                root_children += 1;
            } else if low >= order[parent] {
                cut[parent] = true;
            }
            (v, low) = (parent, parent_low.min(low));
            (e, end) = (parent_e, first[parent + 1]);
        }
        cut[root] = root_children > 1;
        seen as usize
    }
}

/// The steps a cut leaves: `cells[i][s]` for its `i`-th cell,
/// `parts[j][s]` for every cell of part `j` (index 0 unused).
pub(super) struct Fit {
    pub cells: Vec<Vec<bool>>,
    pub parts: Vec<Vec<bool>>,
}

/// What the steps must meet: the anchors and, if known, each cell's
/// possible steps (`ok(c, s)`: cell `c` may be at step `s`; only asked
/// of the cut's cells).
pub(super) struct Known<'a> {
    pub n: usize,
    pub anchors: &'a [(usize, CellId)],
    pub ok: Option<&'a dyn Fn(CellId, usize) -> bool>,
}

impl Known<'_> {
    /// Whether cell `c` can be at step `s` as far as the anchors (and the
    /// windows) tell.
    fn allows(&self, c: CellId, s: usize) -> bool {
        let anchored = self.anchors.iter().all(|&(k, at)| (at == c) == (k == s));
        anchored && self.ok.is_none_or(|ok| ok(c, s))
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
    let mut ways = Ways::new(cut, known, first);
    match (cut.cells.len(), cut.parts()) {
        (1, 2) => ways.one_cell(),
        (2, 2) => ways.two_parts(),
        (2, 3) => ways.three_parts(),
        // One cut cell and three parts, or two and four: the path joins
        // two parts per cut cell at most.
        _ => {}
    }
    ways
}

/// Steps `lo..=hi` (none when `lo > hi`).
type Steps = (usize, usize);

/// The steps in both `a` and `b`.
fn meet(a: Steps, b: Steps) -> Steps {
    (a.0.max(b.0), a.1.min(b.1))
}

/// The steps `d` before those of `s` (those before step 1 become step 0,
/// which no way has).
fn earlier(s: Steps, d: usize) -> Steps {
    (s.0.saturating_sub(d), s.1.saturating_sub(d))
}

/// Whether step `k` is one of `s`.
fn holds(s: Steps, k: usize) -> bool {
    s.0 <= k && k <= s.1
}

/// The ways of passing a cut found to fit so far (see [`fit`]).
struct Ways<'c, 'k> {
    cut: &'c Cut,
    known: &'c Known<'k>,
    /// The anchors of each part up to each step: `below[j * (n + 1) + s]`
    /// of part `j`'s at steps `<= s`.
    below: Vec<u32>,
    /// Per part, the steps from its first anchor to its last (`lo > hi`
    /// without anchors).
    span: Vec<Steps>,
    /// Per cut cell, the steps its own anchors leave it: all, the one it
    /// is anchored at, or none (anchored at two).
    pinned: [Steps; 2],
    cells: Vec<Vec<bool>>,
    starts: Vec<Vec<i64>>,
    any: bool,
    /// Stop at the first way that fits, recording nothing.
    first: bool,
}

impl<'c, 'k> Ways<'c, 'k> {
    fn new(cut: &'c Cut, known: &'c Known<'k>, first: bool) -> Ways<'c, 'k> {
        let (n, m) = (known.n, cut.parts());
        let mut below = vec![0u32; m * (n + 1)];
        let mut span = vec![(usize::MAX, 0); m];
        let mut pinned = [(1, n); 2];
        for &(k, c) in known.anchors {
            let j = cut.part_of(c) as usize;
            if let Some(i) = cut.cells.iter().position(|&x| x == c) {
                pinned[i] = meet(pinned[i], (k, k));
            } else if j < m {
                below[j * (n + 1) + k] += 1;
                span[j] = (span[j].0.min(k), span[j].1.max(k));
            }
        }
        for row in below.chunks_mut(n + 1) {
            for s in 1..=n {
                row[s] += row[s - 1];
            }
        }
        Ways {
            cut,
            known,
            below,
            span,
            pinned,
            // Recorded only when all ways are looked for.
            cells: match first {
                true => Vec::new(),
                false => vec![vec![false; n + 1]; cut.cells.len()],
            },
            // Per part, +1 where a fitting interval starts, -1 past its end.
            starts: match first {
                true => Vec::new(),
                false => vec![vec![0i64; n + 2]; m],
            },
            any: false,
            first,
        }
    }

    /// Whether the search is over: a way fits, and the first is enough.
    fn done(&self) -> bool {
        self.first && self.any
    }

    /// The anchors of part `j` at steps `<= s`.
    fn below(&self, j: usize, s: usize) -> u32 {
        self.below[j * (self.known.n + 1) + s]
    }

    /// A cut of one cell between two parts: the walk through one, the
    /// cell, the walk through the other.
    fn one_cell(&mut self) {
        for x in 0..2u32 {
            let s = self.cut.sizes[x as usize] + 1;
            self.try_way(&[0], &[s], &[x, 1 - x]);
        }
    }

    /// A cut of two cells between two parts: part `x` holds the walk
    /// before the cut, between its cells, or after it, part `y` the
    /// other two. Each is a family with one free step, tried only where
    /// the anchors of part `x` and of the cut's cells let it be; every
    /// other step fails the same checks in [`Ways::try_way`] (the part's
    /// anchors outside its walks, or a cut cell away from its anchor).
    /// Trying every step cost 0.95M instructions on the twelve cuts of a
    /// 9x9 numbrix (5,400 ways, most failing on an anchor), these about
    /// 0.08M.
    fn two_parts(&mut self) {
        let n = self.known.n;
        for order in [[0, 1], [1, 0]] {
            let (first_at, second_at) = (self.pinned[order[0]], self.pinned[order[1]]);
            for x in 0..2u32 {
                let (lx, y) = (self.cut.sizes[x as usize], 1 - x);
                let (ax, ay) = (self.span[x as usize], self.span[y as usize]);
                // Before: x's anchors within 1..=lx, y's past lx + 1.
                if ax.1 <= lx && ay.0 > lx + 1 && holds(first_at, lx + 1) {
                    let (lo, hi) = meet((lx + 2, n), second_at);
                    for g in lo..=hi {
                        self.try_way(&order, &[lx + 1, g], &[x, y, y]);
                        if self.done() {
                            return;
                        }
                    }
                }
                // Between: x's anchors within f + 1..=f + lx.
                let around = (ax.1.saturating_sub(lx), ax.0.saturating_sub(1));
                let at = meet(first_at, earlier(second_at, lx + 1));
                let (lo, hi) = meet(meet((1, n - lx - 1), around), at);
                for f in lo..=hi {
                    self.try_way(&order, &[f, f + lx + 1], &[y, x, y]);
                    if self.done() {
                        return;
                    }
                }
                // After: x's anchors within n - lx + 1..=n, y's before n - lx.
                if ax.0 > n - lx && ay.1 < n - lx && holds(second_at, n - lx) {
                    let (lo, hi) = meet((1, n - lx - 1), first_at);
                    for f in lo..=hi {
                        self.try_way(&order, &[f, n - lx], &[y, y, x]);
                        if self.done() {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// A cut of two cells between three parts: the walks through the
    /// parts in each order, the cut's cells between them in each order.
    fn three_parts(&mut self) {
        let sizes = self.cut.sizes();
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
                let steps = [f, f + sizes[perm[1] as usize] + 1];
                self.try_way(&order, &steps, &perm);
            }
        }
    }

    /// One way: the cut's cells in the visit order `order` at `steps`
    /// (increasing), the walks before, between and after them in the
    /// parts `walks` (one per walk; an empty walk's part is not looked at).
    /// Records its steps if it fits.
    fn try_way(&mut self, order: &[usize], steps: &[usize], walks: &[u32]) {
        let n = self.known.n;
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
            anchors[j] += self.below(j, hi) - self.below(j, lo - 1);
        }
        let m = self.cut.parts();
        if (0..m).any(|j| size[j] != self.cut.sizes[j] || anchors[j] != self.below(j, n)) {
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

    /// Every way of passing `cut` tried one by one: each order of its
    /// cells, each of their steps and each part for each walk ([`fit`]
    /// tries the families of [`search`] only, and of those only the steps
    /// the anchors leave).
    fn fit_trying_every_way(cut: &Cut, known: &Known) -> Option<Fit> {
        let (n, m) = (known.n, cut.parts() as u32);
        if m > 3 {
            // The path joins three parts at most.
            return None;
        }
        let mut ways = Ways::new(cut, known, false);
        let parts = |walks: u32| {
            (0..m.pow(walks)).map(move |i| (0..walks).map(|w| i / m.pow(w) % m).collect::<Vec<_>>())
        };
        for s in 1..=n {
            if cut.cells.len() == 1 {
                parts(2).for_each(|walks| ways.try_way(&[0], &[s], &walks));
                continue;
            }
            for (order, t) in [[0, 1], [1, 0]]
                .iter()
                .flat_map(|o| (s + 1..=n).map(move |t| (o, t)))
            {
                parts(3).for_each(|walks| ways.try_way(order, &[s, t], &walks));
            }
        }
        ways.any.then(|| ways.finish())
    }

    #[test]
    fn the_ways_tried_are_all_that_fit() {
        // Small random boards, anchors (some cells twice, some steps
        // twice) and windows, from a fixed xorshift seed.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let (mut fitting, mut not) = (0, 0);
        for _ in 0..800 {
            let (rows, cols) = (1 + random(4), 2 + random(6));
            let variant = ["numbrix", "hidato"][random(2)];
            let grid: String = (0..rows)
                .map(|_| {
                    (0..cols)
                        .map(|_| ["X ", ". ", ". "][random(3)])
                        .collect::<String>()
                        + "\n"
                })
                .collect();
            let Ok(p) = parse::parse(&format!("variant: {variant}\n{grid}")) else {
                continue;
            };
            let adj = adjacency(&p);
            let n = adj.len();
            for cut in cuts(&p) {
                let anchors: Vec<(usize, CellId)> = (0..random(4))
                    .map(|_| (1 + random(n), CellId(random(n) as u32)))
                    .collect();
                let windows: Vec<Vec<bool>> = (0..n)
                    .map(|_| (0..=n).map(|s| s > 0 && random(8) > 0).collect())
                    .collect();
                let windowed = |c: CellId, s: usize| windows[c.index()][s];
                for ok in [None, Some(&windowed as &dyn Fn(CellId, usize) -> bool)] {
                    let known = Known {
                        n,
                        anchors: &anchors,
                        ok,
                    };
                    let all = fit_trying_every_way(&cut, &known);
                    let found = fit(&cut, &known);
                    assert_eq!(fits(&cut, &known), all.is_some(), "{grid}");
                    match (found, all) {
                        (Some(a), Some(b)) => {
                            assert_eq!((a.cells, a.parts), (b.cells, b.parts), "{grid}");
                            fitting += 1;
                        }
                        (a, b) => {
                            assert_eq!(a.is_some(), b.is_some(), "{grid}");
                            not += 1;
                        }
                    }
                }
            }
        }
        // Both kinds of cut, anchors and all.
        assert!(fitting > 500 && not > 500, "{fitting} fitting, {not} not");
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
        let found: Vec<Vec<CellId>> = cuts(&p).into_iter().map(|c| c.cells).collect();
        assert_eq!(found, [vec![id(&p, 0, 2), id(&p, 2, 2)]]);
        // A 1x4 strip: its two inner cells cut it (and the pairs with
        // one of them are left out).
        let p = parse::parse("variant: numbrix\n. . . .\n").unwrap();
        let cut = cuts(&p);
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
        let cut = cuts(&p).pop().unwrap();
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
        assert!(fit(&cuts(&p)[0], &known).is_none());
        // A cell with four parts around it (a cut of one).
        let p = parse::parse("variant: numbrix\nX . X\n. . .\nX . X\n. . .\n").unwrap();
        let adj = adjacency(&p);
        let known = no_windows(adj.len(), &[]);
        assert!(cuts(&p).iter().any(|c| fit(c, &known).is_none()));
    }
}
