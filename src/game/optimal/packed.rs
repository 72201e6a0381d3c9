//! The fast candidate scan for games with exactly one final outcome
//! (Mastermind, black-peg, Bulls and Cows): part counts as bytes, eight
//! outcomes per machine word.
//!
//! Input: the outcomes of each code of a set under a range of candidate
//! experiments. Output: per candidate, the number of non-empty open parts,
//! whether it hits a code, and whether some open part is larger than a
//! threshold τ.
//!
//! Invariants: sets hold at most 255 codes (counts fit a byte). With one
//! final outcome, a part of `x ≤ τ` codes has size bound `2x − 1` (τ is
//! where the complete-tree bound stops being linear), so a candidate whose
//! open parts are all at most τ has one-step bound
//! `n + 2·(n − hits) − parts`, computed here with SWAR bit tricks; the
//! others take the general path in the caller.

/// Byte lanes: low bits and high bits of every byte.
const L: u64 = 0x0101_0101_0101_0101;
const H: u64 = 0x8080_8080_8080_8080;

/// The layout of byte counts for one table.
#[derive(Clone, Debug)]
pub struct Packed {
    /// Bytes per candidate: outcomes rounded up to a power of two, 8 to
    /// 64.
    pub stride: usize,
    /// Per 8-byte word, 0xFF on the lanes of open (non-final) outcomes.
    open_mask: Vec<u64>,
    /// The final outcome's lane.
    pub final_lane: usize,
}

/// What one candidate's counts say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Non-empty open parts.
    pub parts: u32,
    /// Codes in the final part (0, 1, or more: ambiguous).
    pub hits: u32,
    /// Some open part holds more than τ codes.
    pub big: bool,
}

impl Packed {
    /// `is_final` per outcome; `None` unless exactly one outcome is final.
    pub fn new(is_final: &[bool]) -> Option<Packed> {
        let finals: Vec<usize> = (0..is_final.len()).filter(|&o| is_final[o]).collect();
        if finals.len() != 1 {
            return None;
        }
        if is_final.len() > 64 {
            return None;
        }
        let stride = is_final.len().next_power_of_two().max(8);
        let mut open_mask = vec![0u64; stride / 8];
        for (o, &f) in is_final.iter().enumerate() {
            if !f {
                open_mask[o / 8] |= 0xFF << (8 * (o % 8));
            }
        }
        Some(Packed {
            stride,
            open_mask,
            final_lane: finals[0],
        })
    }

    /// Summarises one candidate's counts (`stride` bytes); `tau` < 127.
    #[inline]
    pub fn summary(&self, counts: &[u8], tau: u8, check_big: bool) -> Summary {
        // Per byte lane, how many words have that lane's part non-empty
        // (at most 8: strides are at most 8 words); one multiplication
        // then sums the 8 lanes into the top byte (at most 64 < 256).
        let mut ones = 0u64;
        let mut big = 0u64;
        let sub = (tau as u64 + 1) * L;
        for (w, &mask) in counts.chunks_exact(8).zip(&self.open_mask) {
            let x = u64::from_le_bytes(w.try_into().unwrap_or([0; 8])) & mask;
            // High bit of each byte set iff the byte is non-zero.
            let nz = (((x & !H) + !H) | x) & H;
            ones += nz >> 7;
            if check_big {
                // High bit set iff the byte exceeds tau (bytes < 256).
                big |= (((x | H) - sub) | x) & H;
            }
        }
        // Baseline x86-64 has no popcount instruction; this is three.
        let parts = (ones.wrapping_mul(L) >> 56) as u32;
        Summary {
            parts,
            hits: counts[self.final_lane] as u32,
            big: big != 0,
        }
    }
}

/// The largest τ such that `bound[x] == 2x − 1` for every `1 ≤ x ≤ τ`,
/// capped at 126 (the SWAR comparison needs τ + 1 < 128).
pub fn linear_prefix(bound: &[u32]) -> u8 {
    let linear = bound
        .iter()
        .enumerate()
        .take(127)
        .skip(1)
        .take_while(|&(x, &b)| b as usize == 2 * x - 1)
        .count();
    linear as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_match_a_plain_count() {
        // 14 outcomes, the last one final (Mastermind 4 pegs layout).
        let mut is_final = vec![false; 14];
        is_final[13] = true;
        let p = Packed::new(&is_final).unwrap();
        assert_eq!(p.stride, 16);
        let mut counts = vec![0u8; 16];
        let cases: [&[(usize, u8)]; 4] = [
            &[(0, 3), (5, 1), (13, 1)],
            &[(2, 200), (9, 14), (12, 15)],
            &[(7, 128), (8, 1)],
            &[],
        ];
        for case in cases {
            counts.iter_mut().for_each(|c| *c = 0);
            for &(o, k) in case {
                counts[o] = k;
            }
            // Padding lanes must not count even if dirty.
            counts[14] = 9;
            let want_parts = (0..13).filter(|&o| counts[o] > 0).count() as u32;
            for tau in [1u8, 14, 126] {
                let want_big = (0..13).any(|o| counts[o] > tau);
                let s = p.summary(&counts, tau, true);
                assert_eq!(s.parts, want_parts);
                assert_eq!(s.hits, counts[13] as u32);
                assert_eq!(s.big, want_big, "{case:?} tau {tau}");
            }
        }
    }

    #[test]
    fn linear_prefix_of_complete_tree_bound() {
        // b = 13: 1, 3, 5, …, 27 for x ≤ 14, then 30.
        let b: Vec<u32> = (0..20u32)
            .map(|x| match x {
                0 => 0,
                x if x <= 14 => 2 * x - 1,
                x => 27 + 3 * (x - 14),
            })
            .collect();
        assert_eq!(linear_prefix(&b), 14);
        assert_eq!(linear_prefix(&[0, 1, 3, 9]), 2);
        assert!(Packed::new(&[false, false]).is_none());
    }
}
