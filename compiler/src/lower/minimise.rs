//! Minimisation of set-mode automata: states with the same outcome and
//! the same future are one.

use super::layout::Succ;
use super::FxHashMap;

/// States above which set-mode automata are not minimized (the refinement
/// is O(states × classes) per round).
pub(super) const MINIMIZE_LIMIT: usize = 100_000;

/// Moore's partition refinement: states with the same outcome whose
/// successors on every class (the end class aside: it leads to the state's
/// own outcome) are in the same blocks are one state. Block 0 holds the
/// start state; the other blocks are numbered by first appearance.
pub(super) fn minimize(succ: &Succ, outcome: &[u32], end_class: usize) -> (Succ, Vec<u32>) {
    let n = succ.len();
    let mut block: Vec<usize> = {
        let mut ids: FxHashMap<u32, usize> = FxHashMap::default();
        outcome
            .iter()
            .map(|o| {
                let next = ids.len();
                *ids.entry(*o).or_insert(next)
            })
            .collect()
    };
    let mut count = block.iter().max().map_or(0, |m| m + 1);
    let mut row = vec![0; succ.nclasses];
    loop {
        let mut ids: FxHashMap<Vec<usize>, usize> =
            FxHashMap::with_capacity_and_hasher(count * 2, Default::default());
        let mut next = Vec::with_capacity(n);
        for s in 0..n {
            let mut sig = Vec::with_capacity(succ.nclasses + 1);
            sig.push(block[s]);
            succ.row_into(s, &mut row);
            sig.extend(
                row.iter()
                    .enumerate()
                    .filter(|&(c, _)| c != end_class)
                    .map(|(_, &t)| block[t as usize]),
            );
            let fresh = ids.len();
            next.push(*ids.entry(sig).or_insert(fresh));
        }
        let refined = ids.len();
        block = next;
        if refined == count {
            break;
        }
        count = refined;
    }
    // Block ids are by first appearance, so the start state's is 0.
    let mut rep = vec![usize::MAX; count];
    for (s, &b) in block.iter().enumerate() {
        if rep[b] == usize::MAX {
            rep[b] = s;
        }
    }
    let mut minimal = Succ::new(succ.nclasses);
    let mut to = vec![0; succ.nclasses];
    for &s in &rep {
        succ.row_into(s, &mut row);
        for (r, &t) in to.iter_mut().zip(&row) {
            *r = block[t as usize] as u32;
        }
        minimal.push_row(&to);
    }
    let succ = minimal;
    let outcome = rep.iter().map(|&s| outcome[s]).collect();
    (succ, outcome)
}
