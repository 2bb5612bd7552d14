//! Rank arithmetic of recursive doubling on a number of ranks that is not a power of
//! two (the fold-in of the module documentation): which ranks take part, under which
//! new rank, and whose data each one holds.

/// Largest power of two ≤ p (p ≥ 1).
pub(super) fn pof2_below(p: u32) -> u32 {
    1 << (31 - p.leading_zeros())
}

/// Fold-in of recursive doubling for p not a power of two: the rank's new rank
/// among the `pof2` participants, or `None` for an even rank `< 2·rem` that sits out.
pub(super) fn fold_rank(me: u32, rem: u32) -> Option<u32> {
    if me < 2 * rem {
        if me.is_multiple_of(2) {
            None
        } else {
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    }
}

/// Rank of new rank `nr` (inverse of [`fold_rank`]).
pub(super) fn unfold_rank(nr: u32, rem: u32) -> u32 {
    if nr < rem {
        2 * nr + 1
    } else {
        nr + rem
    }
}

/// First original rank covered by new rank `nr` (an odd rank `2i+1` also holds the
/// data of `2i`); `first_covered(pof2) = p`.
pub(super) fn first_covered(nr: u32, rem: u32) -> u32 {
    if nr < rem {
        2 * nr
    } else {
        nr + rem
    }
}
