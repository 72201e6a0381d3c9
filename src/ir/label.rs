//! Constraint labels and variable names, written as `format!` would
//! write them but without the formatting machinery.
//!
//! Input: pieces of text and numbers ([`Piece`]). Output: one `String`,
//! allocated once at its exact length (`format!` guesses a capacity and
//! may grow it).
//!
//! Why: a model names every variable and labels every constraint, a
//! thousand or more on a 9x9 grid, and through `format!` those strings
//! were an eighth of the waypoint successor model's construction (0.95M
//! of 7.6M instructions, callgrind).

/// Part of a [`label!`]: text as it is, or a number in decimal.
pub(crate) trait Piece {
    /// The bytes it adds.
    fn width(&self) -> usize;
    fn push_to(&self, out: &mut String);
}

impl Piece for &str {
    fn width(&self) -> usize {
        self.len()
    }
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for u64 {
    fn width(&self) -> usize {
        self.checked_ilog10().unwrap_or(0) as usize + 1
    }
    fn push_to(&self, out: &mut String) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut x = *self;
        loop {
            i -= 1;
            digits[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        for &d in &digits[i..] {
            out.push(char::from(d));
        }
    }
}

/// Unsigned numbers as [`u64`].
macro_rules! unsigned_piece {
    ($($t:ty),*) => {$(
        impl Piece for $t {
            fn width(&self) -> usize {
                (*self as u64).width()
            }
            fn push_to(&self, out: &mut String) {
                (*self as u64).push_to(out)
            }
        }
    )*};
}
unsigned_piece!(u32, usize);

impl Piece for i64 {
    fn width(&self) -> usize {
        usize::from(*self < 0) + self.unsigned_abs().width()
    }
    fn push_to(&self, out: &mut String) {
        if *self < 0 {
            out.push('-');
        }
        self.unsigned_abs().push_to(out)
    }
}

/// The pieces one after the other, as `format!` with `{}` for each
/// number would write them.
pub(crate) fn join(pieces: &[&dyn Piece]) -> String {
    let mut out = String::with_capacity(pieces.iter().map(|p| p.width()).sum());
    for p in pieces {
        p.push_to(&mut out);
    }
    out
}

/// `label!("cell ", c.0, " has no way out")`: [`join`] of the pieces
/// (each evaluated once).
macro_rules! label {
    ($($piece:expr),+ $(,)?) => {
        $crate::ir::label::join(&[$(&$piece as &dyn $crate::ir::label::Piece),+])
    };
}
pub(crate) use label;

#[cfg(test)]
mod tests {
    #[test]
    fn labels_are_what_format_writes() {
        for x in [0u64, 1, 9, 10, 99, 100, 12345, u64::MAX] {
            assert_eq!(label!(x), x.to_string());
            assert_eq!(label!(x).capacity(), x.to_string().len());
        }
        for x in [0i64, -1, 7, -10, i64::MIN, i64::MAX] {
            assert_eq!(label!(x), x.to_string());
        }
        let (c, t) = (3u32, 40usize);
        assert_eq!(
            label!("a move ", c, " -> ", t, " raises the rank"),
            format!("a move {c} -> {t} raises the rank")
        );
    }
}
