//! Cache hints for the agents' pass: an agent's state lives in boxes and
//! vectors of its own, which at ten thousand agents no longer stay in cache
//! from one step to the next, and whose first reads stall the pass. Asking
//! for the next agent's memory while the current one is planned hides that
//! wait. A hint reads nothing the program sees, so it cannot change a trace.

/// Bytes per cache line on the machines `crowd` runs on.
const LINE: usize = 64;
/// Prefetches are issued for at most this many bytes of one value.
const MOST: usize = 16 * LINE;

/// Asks for the memory of `value` to be brought into cache (its first
/// [`MOST`] bytes).
#[inline]
pub(crate) fn prefetch<T>(value: &T) {
    prefetch_bytes((value as *const T).cast(), size_of::<T>());
}

/// Asks for the memory of the first elements of `items` (at most [`MOST`] bytes).
#[inline]
pub(crate) fn prefetch_slice<T>(items: &[T]) {
    prefetch_bytes(items.as_ptr().cast(), size_of_val(items));
}

#[inline]
fn prefetch_bytes(start: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    for offset in (0..len.min(MOST)).step_by(LINE) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults, whatever the address, and reads nothing.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, len);
}
