//! How the binary's heap is laid out: glibc malloc's tuning for a process
//! that lives a few milliseconds ([`tune_malloc`]), the huge pages asked
//! for a solve that allocates megabytes ([`huge_heap`]), and the global
//! allocator ([`Allocator`]), which maps blocks of 4 MiB and more on their
//! own and serves a solve's small blocks from a [`pool`].
//!
//! Input: nothing but the process's own heap. Output: none; every step
//! here is a hint to the allocator or the kernel, and when one fails the
//! heap stays as it was (nothing here is needed for correctness).

/// Tunes glibc's malloc for a process that lives a few milliseconds and
/// allocates its large buffers once:
/// * the heap grows (and is kept) 4 MiB at a time rather than 128 KiB.
///   With the default, the domain analysis' large buffers of a 9x9
///   `solve` (180 and 450 KB) were mappings of their own, mapped and
///   unmapped per buffer; with the padding they come from the heap: 580
///   -> 463 page faults and 0.3-0.6 ms less CPU on `solve --count 2` of a
///   9x9 numbrix or hidato puzzle (~5 ms in all), 2-3% on waypoint
///   9x9/15x15;
/// * one arena for every thread, and buffers under 32 MiB from the heap
///   (not mappings of their own, returned only past 64 MiB free at the
///   top; since [`Allocator`], glibc sees only blocks under 4 MiB): a search runs on a thread of its own (`bmc::race`), whose
///   fresh arena took its memory page by page and mapped and unmapped
///   every large buffer. `solve` of the 9x9 hidato and waypoint puzzles,
///   CPU ms, lowest and first quartile of 200 interleaved runs: 3.77/5.25
///   -> 3.45/4.96 and 3.22/3.45 -> 3.19/3.40. Two racing searches share
///   the arena's lock only for blocks past the per-thread caches.
pub fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets tuning parameters of the allocator; called
    // first thing in `main`, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as i32);
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// How much the heap grows at a time (see [`tune_malloc`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: usize = 4 << 20;

/// How much of the heap [`huge_heap`] asks huge pages for.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_HEAP: usize = 16 << 20;

/// Asks for the next 16 MiB of the heap to be backed by transparent huge
/// pages (honoured when `/sys/kernel/mm/transparent_hugepage/enabled` is
/// `always` or `madvise`, a no-op otherwise): the heap is then faulted
/// in one 2 MiB page at a time, not 4 KiB at a time (each fault ~1.8 us
/// here, the kernel zeroing and accounting the page). For a command
/// about to allocate megabytes, while it has one thread (`solve` of a
/// board of [`crate::cli::HUGE_HEAP_CELLS`] open cells or more), not at
/// start-up: zeroing a 2 MiB page costs more than the faults it saves
/// on a run that touches less than about a megabyte.
///
/// How: a first 2 MiB block is taken from the heap's top, growing the
/// heap by [`HUGE_HEAP`] (the padding is raised for this one growth);
/// the whole 2 MiB pages of that growth from the first boundary a page
/// past its end are advised, then a filler block up to that boundary is
/// taken, so the blocks after it start on it. The two blocks are never
/// touched or freed (virtual memory only: no page of them but their
/// headers' is faulted in). The advice comes before anything in its
/// range is touched: a 2 MiB block with a 4 KiB page in it already is
/// never backed by a huge one (a filler that ran past the boundary and
/// put the heap's header in it took that from half the runs). Only the
/// pages touched are backed: a 9x9 `solve` touches one (two or three
/// before the [`Allocator`] mapped large blocks on their own). Nothing
/// here is needed for correctness: when a step fails the heap stays as
/// it was.
///
/// Measured (`solve --count 2`): page faults 406 -> ~137 on numbrix
/// 9x9 s1, 470 -> ~137 on waypoint 9x9 unique-s3 (asked at start-up,
/// they were ~100-115, but every small run paid for a 2 MiB page: CPU
/// ms, medians of 61-101 interleaved runs, numbrix 3x3 1.02 -> 1.24, 5x5
/// 1.59 -> 1.90, `--version` 0.53 -> 0.58, hidato and waypoint 6x6
/// even, numbrix 12x12 18.2 -> 16.8; 9x9 puzzles 0.3-0.46 ms less);
/// peak memory of a 9x9 solve 5 -> 7-8 MB. CPU times on this shared
/// machine drift by 10-30% between runs of one binary, so the faults
/// are the firmer measure.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn huge_heap() {
    const HUGE: usize = 2 << 20;
    // SAFETY: malloc/mallopt/sbrk(0)/madvise on the process's own heap,
    // while the process has one thread (callers' contract; malloc is
    // thread-safe anyway, the blocks taken only leave a gap); sbrk(0)
    // only reads the break; MADV_HUGEPAGE changes no memory contents and
    // only covers whole pages inside the heap (past the first block, up
    // to the break).
    unsafe {
        // black_box: the compiler may otherwise elide an allocation whose
        // block is never used (and they are not, but for where they lie).
        libc::mallopt(libc::M_TOP_PAD, HUGE_HEAP as i32);
        let first = std::hint::black_box(libc::malloc(HUGE));
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as i32);
        if first.is_null() {
            return;
        }
        // Where the heap's free top starts (a chunk is its block and a
        // 16-byte header; the header of the next one ends the block).
        let top = first as usize + HUGE;
        let start = (top + 4096 + HUGE - 1) & !(HUGE - 1);
        let end = libc::sbrk(0) as usize & !(HUGE - 1);
        if end <= start {
            return;
        }
        // Advised before anything in it is touched: a 2 MiB block with
        // one 4 KiB page already in is never backed by a huge one.
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        // The rest of the top up to the boundary, with room for the
        // headers, so the next blocks start on it.
        std::hint::black_box(libc::malloc(start - top - 64));
    }
}

/// See the Linux version: elsewhere the heap is left as it is.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn huge_heap() {}

#[cfg(target_os = "linux")]
pub mod pool;

/// The bytes of the [`pool`]'s chunk: a 9x9 `solve` cuts 190-360 KiB
/// from it, a 12x12 550 KiB; on larger boards it is used up early and
/// their later small blocks come from glibc.
#[cfg(target_os = "linux")]
const POOL: usize = 1 << 20;

/// Gives the calling thread a [`pool`] of small blocks, cut from a chunk
/// of the heap taken now: after [`huge_heap`], the first blocks of its
/// huge pages. Once per process (later calls do nothing); elsewhere than
/// on Linux, nothing.
///
/// Measured (`solve`, without and with): instructions numbrix-9x9-s1
/// 24.5M -> 23.2M, hidato-9x9-unique-s3 13.6M -> 12.5M,
/// waypoint-9x9-unique-s3 10.6M -> 8.6M; CPU ms after a 50 ms pause,
/// medians (first quartiles) of 41 interleaved runs, 3.98 (3.28) -> 3.70
/// (2.85), 2.33 (2.11) -> 2.60 (1.97), 2.53 (2.13) -> 2.29 (1.83); page
/// faults and peak memory unchanged; 15x15 and 20x20 boards (`--jobs 1`)
/// even or faster.
pub fn start_pool() {
    #[cfg(target_os = "linux")]
    // SAFETY: a fresh block of POOL bytes from malloc (16-byte aligned),
    // never freed or otherwise used: the pool's for good.
    unsafe {
        let chunk = libc::malloc(POOL);
        if !chunk.is_null() {
            pool::start(chunk.cast(), POOL);
        }
    }
}

/// The global allocator: glibc's malloc, but for blocks of [`LARGE`] or
/// more, which get a mapping of their own, and for the small blocks of
/// the thread that started the [`pool`] ([`start_pool`]), which it serves
/// while its chunk lasts. Which of the three a block belongs to is told
/// on every call, whichever thread makes it, by its address (the pool's
/// chunk) or its size (a mapping).
///
/// Why the mappings: glibc maps a block of its own only when the heap's
/// free top is too small for it (whatever `M_MMAP_THRESHOLD` says), and
/// after [`huge_heap`] the top holds 14 MiB. BatSat's clause arena starts
/// at 4 MiB (`ClauseAllocator::new`, 1M words) whatever the formula's
/// size, so it took 4 MiB of the advised heap, of which a 9x9 solve
/// writes a few KiB: the blocks after it (the domain analysis, the
/// unrolling) then lay on another 2 MiB page, and every 9x9 `solve`
/// faulted in two huge pages (each ~0.23 ms here, the kernel zeroing it)
/// where one holds everything else. A mapping of its own is faulted in 4 KiB at a time,
/// only where written. A block grown past [`LARGE`] is moved by the
/// kernel (`mremap`), not copied, and a fresh mapping reads as zeros, so
/// a zeroed block costs no writes.
#[cfg(target_os = "linux")]
pub struct Allocator;

/// The size from which a block gets a mapping of its own: BatSat's
/// starting clause arena, and the buffers of 20x20 boards (see
/// [`Allocator`]).
#[cfg(target_os = "linux")]
const LARGE: usize = 4 << 20;

#[cfg(target_os = "linux")]
mod map {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::ptr;

    use super::{pool, Allocator, LARGE};

    /// Whether a block of this layout is (or would be) a mapping: large,
    /// and aligned no more than a page is.
    #[inline]
    fn mapped(size: usize, align: usize) -> bool {
        size >= LARGE && align <= 4096
    }

    /// A fresh zeroed mapping of `size` bytes, or null.
    unsafe fn map(size: usize) -> *mut u8 {
        // SAFETY: an anonymous private mapping at an address of the
        // kernel's choice touches no existing memory.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            ptr::null_mut()
        } else {
            p.cast()
        }
    }

    /// A pool block for this layout, or null (too large or aligned, no
    /// pool on this thread, or its chunk used up).
    #[inline]
    fn from_pool(layout: Layout) -> *mut u8 {
        if layout.size() <= pool::MAX && layout.align() <= pool::ALIGN {
            pool::alloc(layout.size())
        } else {
            ptr::null_mut()
        }
    }

    // SAFETY: every block is the pool's (and goes back to it, or is left
    // alone), glibc's (and goes back to it) or a mapping of exactly its
    // layout's size (and is unmapped or remapped with that size): a pool
    // block is told by its address, which no other block has (the chunk
    // is a live glibc block, never freed); `mapped` gives the same answer
    // for a block's layout at allocation, reallocation and deallocation,
    // since the caller passes the layout the block has (a pool block
    // never becomes a mapping in place: it is moved out).
    unsafe impl GlobalAlloc for Allocator {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = from_pool(layout);
            if !p.is_null() {
                return p;
            }
            if mapped(layout.size(), layout.align()) {
                // SAFETY: see `map`.
                return unsafe { map(layout.size()) };
            }
            // SAFETY: the caller's contract, passed on.
            unsafe { System.alloc(layout) }
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let p = from_pool(layout);
            if !p.is_null() {
                // SAFETY: a pool block of at least `layout.size()` bytes,
                // maybe used before.
                unsafe { ptr::write_bytes(p, 0, layout.size()) };
                return p;
            }
            if mapped(layout.size(), layout.align()) {
                // SAFETY: see `map`; a fresh mapping reads as zeros.
                return unsafe { map(layout.size()) };
            }
            // SAFETY: the caller's contract, passed on.
            unsafe { System.alloc_zeroed(layout) }
        }

        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            if pool::owns(ptr) {
                // SAFETY: a pool block given for `layout.size()` bytes or
                // more, no longer used (the caller's contract).
                unsafe { pool::free(ptr, layout.size()) };
                return;
            }
            if mapped(layout.size(), layout.align()) {
                // SAFETY: `ptr` is a mapping of `layout.size()` bytes
                // (see the impl's note).
                unsafe { libc::munmap(ptr.cast(), layout.size()) };
                return;
            }
            // SAFETY: the caller's contract, passed on.
            unsafe { System.dealloc(ptr, layout) }
        }

        #[inline]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if pool::owns(ptr) {
                if new_size <= pool::capacity(layout.size()) {
                    return ptr; // it holds that many already
                }
                // SAFETY: see `moved`.
                return unsafe { self.moved(ptr, layout, new_size) };
            }
            let align = layout.align();
            match (mapped(layout.size(), align), mapped(new_size, align)) {
                // SAFETY: the caller's contract, passed on.
                (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
                (true, true) => {
                    // SAFETY: `ptr` is a mapping of `layout.size()` bytes;
                    // the kernel moves it when it cannot grow in place.
                    let p = unsafe {
                        libc::mremap(ptr.cast(), layout.size(), new_size, libc::MREMAP_MAYMOVE)
                    };
                    if p == libc::MAP_FAILED {
                        ptr::null_mut()
                    } else {
                        p.cast()
                    }
                }
                // SAFETY: across the threshold, see `moved`.
                _ => unsafe { self.moved(ptr, layout, new_size) },
            }
        }
    }

    impl Allocator {
        /// `realloc` by a new block: the bytes both hold copied, the old
        /// block freed.
        ///
        /// # Safety
        /// `realloc`'s contract.
        unsafe fn moved(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: `new_size` is non-zero and, rounded up to the
            // alignment, fits an `isize` (the caller's contract).
            let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            // SAFETY: as in `alloc`, `dealloc`; the two blocks are
            // distinct, each valid for the bytes copied.
            unsafe {
                let p = self.alloc(new);
                if !p.is_null() {
                    ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                p
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn large_blocks_keep_their_bytes_across_every_kind_of_reallocation() {
        // Small -> large -> larger (remapped) -> small, through Vec.
        let mut v: Vec<u32> = (0..1000).collect();
        v.reserve(super::LARGE / 4);
        assert!(v.capacity() * 4 >= super::LARGE);
        v.extend(1000..(super::LARGE as u32 / 4 + 5000));
        v.reserve(3 * super::LARGE);
        let n = v.len();
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
        v.truncate(10);
        v.shrink_to_fit();
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        assert_eq!(n, super::LARGE / 4 + 5000);
    }

    #[test]
    fn the_pool_serves_its_threads_small_blocks_and_reuses_them() {
        use super::pool;
        std::thread::spawn(|| {
            // The one pool of this test binary (nothing else starts one).
            let chunk: &'static mut [u128] = Vec::leak(vec![0; 4096]);
            let chunk = chunk.as_mut_ptr().cast::<u8>();
            // SAFETY: 64 KiB, 16-byte aligned, never used otherwise.
            unsafe { pool::start(chunk, 4096 * 16) };
            let a = Box::new([7u8; 40]);
            let at = &*a as *const [u8; 40] as *mut u8;
            assert!(pool::owns(at));
            drop(a);
            // The freed block is the next one of its class (33-48 bytes).
            let b = Box::new([9u8; 48]);
            assert_eq!(&*b as *const [u8; 48] as *mut u8, at);
            // Grown in place within its class, then out of the pool.
            let mut v: Vec<u32> = Vec::with_capacity(9);
            v.extend(0..9);
            let first = v.as_ptr();
            v.reserve_exact(3);
            assert_eq!(v.as_ptr(), first);
            v.extend(9..1000);
            assert!(!pool::owns(v.as_ptr() as *mut u8));
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
            // A reused block is zeroed when asked zeroed.
            let dirty = vec![0xffu8; 100];
            let was = dirty.as_ptr();
            drop(dirty);
            let clean = std::hint::black_box(vec![0u8; 100]);
            assert_eq!(clean.as_ptr(), was);
            assert!(clean.iter().all(|&x| x == 0));
            // A pool block freed on another thread is left alone.
            let c = Box::new([1u64; 20]);
            let c_at = &*c as *const [u64; 20] as *mut u8;
            std::thread::spawn(move || drop(c)).join().unwrap();
            let d = Box::new([2u64; 20]);
            assert_ne!(&*d as *const [u64; 20] as *mut u8, c_at);
            assert!(pool::owns(&*d as *const [u64; 20] as *mut u8));
            // Used up: small blocks come from glibc again.
            let many: Vec<Box<[u8; 512]>> = (0..200).map(|_| Box::new([3; 512])).collect();
            assert!(!pool::owns(&*many[199] as *const [u8; 512] as *mut u8));
            assert!(many.iter().all(|b| b.iter().all(|&x| x == 3)));
        })
        .join()
        .unwrap();
        // Another thread's blocks are glibc's.
        let e = Box::new([5u8; 40]);
        assert!(!super::pool::owns(&*e as *const [u8; 40] as *mut u8));
    }

    #[test]
    fn a_large_zeroed_block_reads_as_zeros() {
        let v = vec![0u64; super::LARGE / 8 + 3];
        assert!(v.iter().all(|&x| x == 0));
        let w = vec![7u8; super::LARGE + 1];
        assert!(w.iter().all(|&x| x == 7));
    }
}
