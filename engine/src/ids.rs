//! Typed indexes into a policy's tables and a store's policies, so that a
//! rule id is never passed where a channel or a policy is meant. Each is a
//! transparent `u32`: no cost on the check path, and the artifact keeps
//! plain integers (docs/artifact.md).

macro_rules! id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The id numbered `n`.
            #[inline(always)]
            pub const fn new(n: u32) -> $name {
                $name(n)
            }

            /// Its number.
            #[inline(always)]
            pub const fn get(self) -> u32 {
                self.0
            }

            /// Its number, as an index.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id! {
    /// A rule of a policy: an index into its rule table
    /// ([`Policy::rule`](crate::Policy::rule)), in rule-id order (file
    /// order within a dialect's rule set). What
    /// [`Verdict::rule`](crate::Verdict::rule) names.
    RuleId
}

id! {
    /// A usage channel of a policy: an index into
    /// [`Policy::channels`](crate::Policy::channels), crawl first
    /// ([`Policy::check_channel`](crate::Policy::check_channel)).
    ChannelId
}

id! {
    /// A distinct outcome of a policy's automata: a row of its outcome
    /// table, one word per channel. For tools
    /// (`Policy::outcome_id`, with the `build` feature).
    OutcomeId
}

id! {
    /// A policy of a store: an index into its policies
    /// ([`Store::policy`](crate::Store::policy)), shared by the hosts
    /// that have the same one ([`HostInfo::policy`](crate::HostInfo::policy)).
    PolicyId
}

impl ChannelId {
    /// The first channel of every policy: crawl.
    pub const CRAWL: ChannelId = ChannelId(0);
}
