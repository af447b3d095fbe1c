//! A hint to the processor to start loading memory that is about to be used.

/// Ask for the 128-byte block at `p` (two cache lines) to be brought into the
/// cache. It has no effect on the program's results: a prefetch reads nothing
/// into a register and never faults, whatever the address.
#[inline(always)]
pub fn prefetch_block<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = p as *const i8;
        // SAFETY: SSE is part of the x86-64 baseline, and PREFETCHT0 neither
        // dereferences its operand architecturally nor faults on any address.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
