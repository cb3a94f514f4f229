//! What an agent may fetch of a whole site, exactly: a compiled policy's
//! automata explored from the start over every path a URL can give them,
//! and the verdicts of the states where a path can end.
//!
//! A [`Class`] says which verdicts occur: every path disallowed, every
//! path allowed, or some of each. It is computed from the automaton, not
//! from sampled paths, so "all disallowed" means that no URL at all is
//! allowed. The paths explored are those of [`mod@crate::diff`] (they start
//! with `/`, hold no `#` or NUL, and are in the URL mode's encoded form),
//! except the file's own path ([`robocc_engine::Header::self_path`], exactly
//! `/robots.txt`): a crawler may always fetch that one (RFC 9309 §2.2.2
//! when the compile allows it), and a survey asks about the site's content.
//! Every other path counts, including `/robots.txt?x` and `/robots.txt/`.

use crate::diff::{alphabet, lex, lex_code, side_classes, Lex};
use crate::lower::FxHashMap;
use robocc_engine::{answer, Dialect, PathState, PathSteps, Policy, Usage};
use std::collections::hash_map::Entry;

/// The default budget of explored states (an automaton's state with where
/// the path is in the URL mode's escapes and in the file's own path).
pub const DEFAULT_MAX_STATES: usize = 1_000_000;

/// Which verdicts an agent gets over every path of a site but the file's
/// own (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// No path is allowed.
    AllDisallowed,
    /// Some paths are allowed and some are not.
    Partly,
    /// Every path is allowed.
    AllAllowed,
}

impl Class {
    /// Every class, in order.
    pub const ALL: [Class; 3] = [Class::AllDisallowed, Class::Partly, Class::AllAllowed];

    /// `all-disallowed`, `partly` or `all-allowed`.
    pub fn name(self) -> &'static str {
        match self {
            Class::AllDisallowed => "all-disallowed",
            Class::Partly => "partly",
            Class::AllAllowed => "all-allowed",
        }
    }

    /// The class of a set of paths some of which are allowed (`allowed`)
    /// and some disallowed (`disallowed`); `None` when neither (no path).
    pub fn of(allowed: bool, disallowed: bool) -> Option<Class> {
        match (allowed, disallowed) {
            (true, true) => Some(Class::Partly),
            (true, false) => Some(Class::AllAllowed),
            (false, true) => Some(Class::AllDisallowed),
            (false, false) => None,
        }
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why no class was computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReachError {
    /// More states are reachable than the budget allows; nothing is
    /// answered.
    TooManyStates {
        /// The budget.
        limit: usize,
    },
}

impl std::fmt::Display for ReachError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReachError::TooManyStates { limit } => write!(
                f,
                "the policy has more than {limit} reachable states (the classes' budget)"
            ),
        }
    }
}

impl std::error::Error for ReachError {}

/// Each agent's [`Class`] on each usage asked for ([`classes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classes {
    usages: Vec<Usage>,
    agents: usize,
    /// Usage-major: `classes[u * agents + i]`.
    classes: Vec<Class>,
    states: usize,
}

impl Classes {
    /// Agent `i`'s class on `usage` ([`Policy::agents`] order); `None` when
    /// `usage` was not asked for or `i` is out of range.
    pub fn get(&self, agent: usize, usage: Usage) -> Option<Class> {
        let u = self.usages.iter().position(|&x| x == usage)?;
        if agent >= self.agents {
            return None;
        }
        self.classes.get(u * self.agents + agent).copied()
    }

    /// The usages asked for, in order.
    pub fn usages(&self) -> &[Usage] {
        &self.usages
    }

    /// How many agents are answered (the policy's [`Policy::agent_count`]).
    pub fn agent_count(&self) -> usize {
        self.agents
    }

    /// States explored.
    pub fn states(&self) -> usize {
        self.states
    }
}

/// Where the path is in the file's own path: its first `k` bytes read, or
/// [`OFF`] once it left it.
const OFF: u8 = u8::MAX;

/// Each agent's [`Class`] on each of `usages` (each-agent policies answer
/// each agent, others their one agent), exploring at most `max_states`
/// states (0: no limit).
///
/// # Errors
///
/// [`ReachError::TooManyStates`] when more states are reachable.
pub fn classes(
    policy: &Policy<'_>,
    usages: &[Usage],
    max_states: usize,
) -> Result<Classes, ReachError> {
    let limit = if max_states == 0 {
        usize::MAX
    } else {
        max_states
    };
    let agents = policy.agent_count();
    let mut classes = vec![Class::AllAllowed; usages.len() * agents];
    // Each distinct column explored once, on the policy that answers it
    // alone (an each-agent policy's columns may be automata of their own).
    let mut done: Vec<(usize, Vec<Class>)> = Vec::new();
    let mut states = 0;
    for i in 0..agents {
        let Some((column, view)) = policy.agent_policy(i) else {
            continue;
        };
        let known = done.iter().position(|(c, _)| *c == column);
        let k = match known {
            Some(k) => k,
            None => {
                // Over the budget: the whole policy's limit is named.
                let (found, explored) = column_classes(&view, usages, limit - states)
                    .map_err(|_| ReachError::TooManyStates { limit })?;
                states += explored;
                done.push((column, found));
                done.len() - 1
            }
        };
        for (u, &class) in done[k].1.iter().enumerate() {
            classes[u * agents + i] = class;
        }
    }
    Ok(Classes {
        usages: usages.to_vec(),
        agents,
        classes,
        states,
    })
}

/// One column's class on each of `usages` (`policy` answers that column)
/// and the states explored, at most `limit`.
fn column_classes(
    policy: &Policy<'_>,
    usages: &[Usage],
    limit: usize,
) -> Result<(Vec<Class>, usize), ReachError> {
    let header = policy.header();
    // A usage the policy has no channel for is allowed on every path (the
    // engine's default): known without exploring. The others are explored
    // until each has met both verdicts (`partly`) or every state is seen.
    let (acap, channels) = (header.dialect == Dialect::Acap, policy.channels().count());
    let open: Vec<bool> = usages
        .iter()
        .map(|&u| answer::channel_of(acap, channels, u).is_some())
        .collect();
    let mut allowed = vec![false; usages.len()];
    let mut disallowed = vec![false; usages.len()];
    let settled = |allowed: &[bool], disallowed: &[bool]| {
        (0..usages.len()).all(|u| !open[u] || (allowed[u] && disallowed[u]))
    };
    let class = |allowed: &[bool], disallowed: &[bool]| -> Vec<Class> {
        // The path `/` is never the own path: every explored usage has a
        // verdict (the fallback is never taken).
        (0..usages.len())
            .map(|u| Class::of(allowed[u] || !open[u], disallowed[u]).unwrap_or(Class::AllAllowed))
            .collect()
    };
    if settled(&allowed, &disallowed) {
        return Ok((class(&allowed, &disallowed), 0));
    }
    let mode = header.url_mode;
    let own = header.self_path.as_bytes();
    let steps = policy.path_steps();
    let alphabet = alphabet(&[&side_classes(&steps)], mode, own);
    let width = alphabet.len();
    let mut states = States::new(&steps, width);
    // Each explored state: (automata's state id, lexer, own path).
    let mut seen: FxHashMap<(u32, u8, u8), ()> = FxHashMap::default();
    let mut queue: Vec<(u32, Lex, u8)> = Vec::new();
    // The automata's states where some path other than the own path ends
    // (each state's verdicts are read once).
    let mut ends: Vec<bool> = Vec::new();
    let s0 = states.intern(steps.start());
    let s0 = states.step(s0, b'/');
    let k0 = if own.first() == Some(&b'/') { 1 } else { OFF };
    seen.insert((s0, lex_code(Lex::Free) as u8, k0), ());
    queue.push((s0, Lex::Free, k0));
    while let Some((s, at, k)) = queue.pop() {
        let decided = states.decided[s as usize];
        if at == Lex::Free && usize::from(k) != own.len() {
            if ends.len() <= s as usize {
                ends.resize(s as usize + 1, false);
            }
            if !ends[s as usize] {
                ends[s as usize] = true;
                for (u, &usage) in usages.iter().enumerate().filter(|&(u, _)| open[u]) {
                    if steps.verdict(&states.states[s as usize], usage).allowed {
                        allowed[u] = true;
                    } else {
                        disallowed[u] = true;
                    }
                }
                if settled(&allowed, &disallowed) {
                    // Every explored usage is partly: nothing left to learn
                    // (most files; the depth-first order meets both early).
                    break;
                }
            }
            if decided {
                // No byte changes the answer any more.
                continue;
            }
        }
        for (i, &b) in alphabet.iter().enumerate() {
            let Some(next_at) = lex(mode, at, b) else {
                continue;
            };
            let next_k = match own.get(usize::from(k)) {
                Some(&c) if k != OFF && c == b => k + 1,
                _ => OFF,
            };
            let next = if decided { s } else { states.step_k(s, i, b) };
            if let Entry::Vacant(e) = seen.entry((next, lex_code(next_at) as u8, next_k)) {
                e.insert(());
                queue.push((next, next_at, next_k));
            }
        }
        if seen.len() > limit {
            return Err(ReachError::TooManyStates { limit });
        }
    }
    Ok((class(&allowed, &disallowed), seen.len()))
}

/// The automata's distinct states met, numbered; each state's steps over
/// the alphabet are computed once.
struct States<'p, 's> {
    steps: &'s PathSteps<'p>,
    ids: FxHashMap<PathState, u32>,
    states: Vec<PathState>,
    decided: Vec<bool>,
    /// `width` steps per state (`NONE` until computed).
    next: Vec<u32>,
    width: usize,
}

const NONE: u32 = u32::MAX;

impl<'p, 's> States<'p, 's> {
    fn new(steps: &'s PathSteps<'p>, width: usize) -> States<'p, 's> {
        States {
            steps,
            ids: FxHashMap::default(),
            states: Vec::new(),
            decided: Vec::new(),
            next: Vec::new(),
            width,
        }
    }

    fn intern(&mut self, state: PathState) -> u32 {
        if let Some(&id) = self.ids.get(&state) {
            return id;
        }
        let id = self.states.len() as u32;
        self.decided.push(self.steps.decided(&state));
        self.next.extend(std::iter::repeat_n(NONE, self.width));
        self.ids.insert(state.clone(), id);
        self.states.push(state);
        id
    }

    fn step(&mut self, id: u32, b: u8) -> u32 {
        let next = self.steps.step(&self.states[id as usize], b);
        self.intern(next)
    }

    /// The state `id` goes to on the alphabet's `k`th byte `b`.
    fn step_k(&mut self, id: u32, k: usize, b: u8) -> u32 {
        let at = id as usize * self.width + k;
        if self.next[at] == NONE {
            self.next[at] = self.step(id, b);
        }
        self.next[at]
    }
}
