//! The game of `awari`'s database: Awari's board and sowing, with the rule that the
//! first capture wins. Twelve pits, six a side; the player to move sows the stones of
//! one of their non-empty pits one by one into the following pits, counter-clockwise,
//! skipping the emptied pit; if the last stone lands on the opponent's side and makes
//! that pit hold 2 or 3 stones, the move captures, and wins. A player with no stones on
//! their side has no move and loses. Every other move keeps the stones on the board,
//! so the positions of s stones form one database, its graph full of cycles; a position
//! neither player can force to a win is a draw.
//!
//! A board is seen from the player to move: pits 0–5 theirs, 6–11 the opponent's.

/// Pits on the board.
pub const PITS: usize = 12;
/// A board, seen from the player to move.
pub type Board = [u8; PITS];

/// A position's value for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    Win,
    Loss,
    Draw,
}

/// A board in 4 bits a pit (up to 15 stones in a pit).
pub fn code(b: &Board) -> u64 {
    b.iter().rev().fold(0, |c, &s| c << 4 | u64::from(s))
}

pub fn board(code: u64) -> Board {
    std::array::from_fn(|i| (code >> (4 * i) & 15) as u8)
}

/// The board as the other player sees it.
fn turn(b: &Board) -> Board {
    std::array::from_fn(|i| b[(i + 6) % PITS])
}

/// Sow pit `pit` (0–5) of the player to move: the board the opponent then faces and
/// whether the move captured; `None` for an empty pit.
pub fn play(b: &Board, pit: usize) -> Option<(Board, bool)> {
    let mut b = *b;
    let mut stones = std::mem::take(&mut b[pit]);
    if stones == 0 {
        return None;
    }
    let mut at = pit;
    while stones > 0 {
        at = (at + 1) % PITS;
        if at != pit {
            b[at] += 1;
            stones -= 1;
        }
    }
    let captures = at >= 6 && (b[at] == 2 || b[at] == 3);
    Some((turn(&b), captures))
}

/// The positions with a non-capturing move to `child`, once per such move.
pub fn predecessors(child: &Board) -> Vec<Board> {
    let sown = turn(child);
    let stones: u8 = child.iter().sum();
    let mut out = Vec::new();
    // The mover emptied pit `pit` (now empty) and sowed k stones after it.
    for pit in (0..6).filter(|&p| sown[p] == 0) {
        'k: for k in 1..=stones {
            let mut b = sown;
            let (mut at, mut left) = (pit, k);
            while left > 0 {
                at = (at + 1) % PITS;
                if at != pit {
                    if b[at] == 0 {
                        continue 'k;
                    }
                    b[at] -= 1;
                    left -= 1;
                }
            }
            b[pit] = k;
            if play(&b, pit) == Some((*child, false)) {
                out.push(b);
            }
        }
    }
    out
}

/// The value a position has before looking further: a win with a capture at hand, a
/// loss with no move; otherwise `None` and the number of (non-capturing) moves.
pub fn classify(b: &Board) -> (Option<Value>, usize) {
    let mut moves = 0;
    for pit in 0..6 {
        match play(b, pit) {
            Some((_, true)) => return (Some(Value::Win), 0),
            Some((_, false)) => moves += 1,
            None => {}
        }
    }
    (if moves == 0 { Some(Value::Loss) } else { None }, moves)
}

/// Every board of `stones` stones, in a fixed order.
pub fn positions(stones: u8) -> Vec<Board> {
    fn fill(b: &mut Board, pit: usize, left: u8, out: &mut Vec<Board>) {
        if pit == PITS - 1 {
            b[pit] = left;
            out.push(*b);
            return;
        }
        for s in 0..=left {
            b[pit] = s;
            fill(b, pit + 1, left - s, out);
        }
    }
    let mut out = Vec::new();
    fill(&mut [0; PITS], 0, stones, &mut out);
    out
}

/// The database of `stones` stones by forward iteration, a second method beside the
/// programs' backward propagation: repeat until nothing changes: a position is won
/// if a move captures or leads to a lost position, lost if every move leads to a won
/// one; what is left is drawn.
pub fn solve(stones: u8) -> std::collections::HashMap<u64, Value> {
    let all = positions(stones);
    let index: std::collections::HashMap<u64, usize> = all.iter().enumerate().map(|(i, b)| (code(b), i)).collect();
    let moves: Vec<Vec<(usize, bool)>> = all
        .iter()
        .map(|b| (0..6).filter_map(|p| play(b, p)).map(|(c, cap)| (index[&code(&c)], cap)).collect())
        .collect();
    let mut value: Vec<Option<Value>> = vec![None; all.len()];
    loop {
        let mut changed = false;
        for i in 0..all.len() {
            if value[i].is_some() {
                continue;
            }
            let ms = &moves[i];
            let v = if ms.iter().any(|&(c, cap)| cap || value[c] == Some(Value::Loss)) {
                Some(Value::Win)
            } else if ms.iter().all(|&(c, _)| value[c] == Some(Value::Win)) {
                Some(Value::Loss)
            } else {
                None
            };
            if v.is_some() {
                value[i] = v;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    all.iter().zip(value).map(|(b, v)| (code(b), v.unwrap_or(Value::Draw))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(pits: [u8; 12]) -> Board {
        pits
    }

    #[test]
    fn sowing_skips_the_emptied_pit_and_captures_on_two_or_three() {
        // Pit 5 holds 2: stones to 6 and 7; pit 7 then holds 1 + 1 = 2: a capture.
        let (child, cap) = play(&b([0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0]), 5).unwrap();
        assert!(cap);
        // The opponent sees its pits 6, 7 (now 1, 2) as 0, 1.
        assert_eq!(child, b([1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        // Twelve stones from pit 0 go round once, skip pit 0 and land in pit 1 again.
        let (child, cap) = play(&b([12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 0).unwrap();
        assert!(!cap);
        assert_eq!(turn(&child), b([0, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]));
        assert_eq!(play(&b([0; 12]), 3), None);
    }

    #[test]
    fn a_board_of_s_stones_has_c_s_plus_11_over_11_positions() {
        // Stars and bars: C(s + 11, 11): 1, 12, 78, 364 for 0–3 stones.
        assert_eq!([0, 1, 2, 3].map(|s| positions(s).len()), [1, 12, 78, 364]);
        assert!(positions(3).iter().all(|b| board(code(b)) == *b));
    }

    #[test]
    fn predecessors_are_exactly_the_positions_with_a_quiet_move_there() {
        // Second method: every quiet move of every 4-stone position, inverted.
        let all = positions(4);
        for c in &all {
            let mut want: Vec<Board> =
                all.iter().flat_map(|p| (0..6).filter(|&i| play(p, i) == Some((*c, false))).map(|_| *p)).collect();
            let mut got = predecessors(c);
            want.sort();
            got.sort();
            assert_eq!(got, want, "{c:?}");
        }
    }

    #[test]
    fn one_stone_positions_by_hand() {
        // On the opponent's side the stone leaves the mover without a move: lost. In
        // pits 0–4 the mover sows it one pit on, still on its side, and the opponent
        // has no move: won. From pit 5 it crosses to the opponent's pit 0 (1 stone, no
        // capture); the opponent sows it on to its pit 1, leaving the mover no move:
        // the opponent wins, so pit 5 is lost.
        let db = solve(1);
        let at = |p: usize| db[&code(&std::array::from_fn(|i| u8::from(i == p)))];
        assert_eq!((0..12).map(at).collect::<Vec<_>>(), [[Value::Win; 5].as_slice(), &[Value::Loss; 7]].concat());
    }
}
