//! Moving a large vector onto the end of another without holding both in full:
//! the source is copied from its end in slices and shrunk after each, so its
//! memory goes back to the allocator as the destination grows (joining the parts
//! of a gigabyte schedule would otherwise need the schedule's size twice over).

/// Elements moved between two shrinks of the source.
const SLICE: usize = 1 << 18;

/// Append `map(x)` for every `x` of `src` to `dst`, in order.
pub(crate) fn append_draining<T: Copy>(dst: &mut Vec<T>, mut src: Vec<T>, map: impl Fn(T) -> T) {
    let base = dst.len();
    let n = src.len();
    dst.reserve_exact(n);
    let spare = &mut dst.spare_capacity_mut()[..n];
    let mut end = n;
    while end > 0 {
        let start = end.saturating_sub(SLICE);
        for (slot, &x) in spare[start..end].iter_mut().zip(&src[start..end]) {
            slot.write(map(x));
        }
        src.truncate(start);
        src.shrink_to_fit();
        end = start;
    }
    // SAFETY: the loop wrote every one of the `n` slots after `base`.
    unsafe { dst.set_len(base + n) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_every_element_mapped_and_in_order() {
        let n = 3 * SLICE + 5;
        let mut dst = vec![7u32, 8];
        append_draining(&mut dst, (0..n as u32).collect(), |x| x * 2);
        assert_eq!(dst.len(), n + 2);
        assert_eq!(&dst[..3], &[7, 8, 0]);
        assert!(dst[2..].iter().enumerate().all(|(i, &x)| x == 2 * i as u32));
    }
}
