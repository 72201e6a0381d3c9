//! A pool of small blocks for one thread: the blocks of up to [`MAX`]
//! bytes that thread allocates once [`start`] gave it a chunk, cut from
//! the chunk in turn and kept, once freed, on a list per 16-byte size
//! class for the next block of that class.
//!
//! Why: building a grid puzzle's models (boxed expression trees, labels,
//! tables) and analysing them allocates ~6,000-12,000 small blocks in a
//! 9x9 `solve`, most of them once and early, and glibc's malloc serves
//! each such block from the top of the heap through its slow path (~100
//! instructions, with the free ~40 more): 19% of a 9x9 waypoint solve's
//! instructions. Here a block costs a thread-local look-up and a few
//! instructions, and needs no header (the caller's layout gives its size
//! back at free), so the blocks lie closer together.
//!
//! Invariants: a block the pool gave out lies in the chunk
//! ([`owns`]), and only the thread that started the pool puts blocks on
//! its lists or takes them off; a pool block freed by another thread is
//! not reused (at most the chunk, 1 MiB, is lost that way). A block on a
//! list of class `c` holds at least `16 (c + 1)` bytes; its first word
//! links to the next. Nothing is ever given back to glibc: once the chunk
//! is cut up, small blocks come from glibc again.

use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The size classes' step, and the blocks' alignment.
const STEP: usize = 16;
const CLASSES: usize = 32;

/// The largest block the pool serves.
pub const MAX: usize = STEP * CLASSES;

/// The largest alignment the pool serves.
pub const ALIGN: usize = STEP;

/// The chunk, `[START, END)` (both 0 before [`start`]): what [`owns`]
/// reads on any thread.
static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);

/// The pool's state, on the thread that started it (`active`); on every
/// other thread it stays inactive.
struct Local {
    active: bool,
    /// Per class, the last block freed (null: none), linked through their
    /// first words.
    free: [*mut u8; CLASSES],
    /// The chunk's part not yet cut.
    next: *mut u8,
    end: *mut u8,
}

thread_local! {
    // `const` and without `Drop`: reading it is a plain thread-local
    // access, never a registration of a destructor (an allocation) and
    // never refused during a thread's exit.
    static LOCAL: UnsafeCell<Local> = const {
        UnsafeCell::new(Local {
            active: false,
            free: [ptr::null_mut(); CLASSES],
            next: ptr::null_mut(),
            end: ptr::null_mut(),
        })
    };
}

/// Gives the calling thread a pool cut from `len` bytes at `chunk`;
/// nothing when a pool was started already (there is one per process).
///
/// # Safety
/// `chunk` must be valid for reads and writes of `len` bytes, aligned to
/// [`ALIGN`], and never used otherwise, for the rest of the process.
pub unsafe fn start(chunk: *mut u8, len: usize) {
    let at = chunk as usize;
    if at == 0 || START.compare_exchange(0, at, Relaxed, Relaxed).is_err() {
        return;
    }
    END.store(at + len, Relaxed);
    LOCAL.with(|l| {
        // SAFETY: this thread's own state, not borrowed elsewhere (the
        // pool's functions hold no reference across calls).
        let l = unsafe { &mut *l.get() };
        l.active = true;
        l.next = chunk;
        // SAFETY: the caller's contract: the chunk has `len` bytes.
        l.end = unsafe { chunk.add(len) };
    });
}

/// Whether `p` is a block of the pool's chunk (false before [`start`]).
#[inline]
pub fn owns(p: *mut u8) -> bool {
    let at = p as usize;
    at >= START.load(Relaxed) && at < END.load(Relaxed)
}

/// The class of a block of `size` bytes (1 to [`MAX`]).
#[inline]
fn class(size: usize) -> usize {
    size.div_ceil(STEP) - 1
}

/// The bytes a pool block given for `size` bytes holds.
#[inline]
pub fn capacity(size: usize) -> usize {
    (class(size) + 1) * STEP
}

/// A block of `size` bytes (1 to [`MAX`]) aligned to [`ALIGN`], or null
/// when this thread has no pool or the chunk is used up.
#[inline]
pub fn alloc(size: usize) -> *mut u8 {
    LOCAL.with(|l| {
        // SAFETY: this thread's own state (see `start`).
        let l = unsafe { &mut *l.get() };
        if !l.active {
            return ptr::null_mut();
        }
        let c = class(size);
        let head = l.free[c];
        if !head.is_null() {
            // SAFETY: a freed block of class `c`: its first word links to
            // the next one (see `free`).
            l.free[c] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let len = (c + 1) * STEP;
        if (l.end as usize) - (l.next as usize) < len {
            return ptr::null_mut();
        }
        let p = l.next;
        // SAFETY: `len` more bytes lie in the chunk (checked above).
        l.next = unsafe { p.add(len) };
        p
    })
}

/// Takes back the pool block `p`, given for `size` bytes or fewer; on a
/// thread other than the pool's it is left alone (never reused).
///
/// # Safety
/// `p` must be a block of the pool ([`owns`]) no longer in use, given for
/// at least `size` bytes (1 to [`MAX`]).
#[inline]
pub unsafe fn free(p: *mut u8, size: usize) {
    LOCAL.with(|l| {
        // SAFETY: this thread's own state (see `start`).
        let l = unsafe { &mut *l.get() };
        if !l.active {
            return;
        }
        let c = class(size);
        // SAFETY: the block holds at least 16 bytes and is no longer used
        // (the caller's contract): its first word becomes the link.
        unsafe { p.cast::<*mut u8>().write(l.free[c]) };
        l.free[c] = p;
    })
}
