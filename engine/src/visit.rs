//! "May I visit at time T, and at what rate?" — robots 2.0's Visit-time and
//! Request-rate, answered from the artifact without allocation.
//!
//! Times are UTC (the robots 2.0 text: "The time is specified in UT"). The
//! compiler keeps only records that parsed; this module only chooses:
//!
//! * **Visit-time**: with no window, any time; otherwise inside one of them.
//! * **Request-rate**: the rates whose window contains T apply; when none
//!   does, the rates without a window. Among those that apply the slowest
//!   wins (fewest documents per normalised unit of time — the text's rule
//!   for several rates without a time, used for overlapping windows too).

use crate::policy::Policy;
use crate::types::Rate;

/// Minutes in a day.
pub const MINUTES_PER_DAY: u16 = 1440;

/// The answer for one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VisitAdvice {
    /// Inside a Visit-time window (or no window is given).
    pub allowed_now: bool,
    /// The request rate that applies now, if any record gives one.
    pub rate: Option<Rate>,
}

impl Policy<'_> {
    /// Visit advice at `minute` minutes after midnight UTC (taken modulo a
    /// day).
    pub fn visit_at_minute(&self, minute: u16) -> VisitAdvice {
        let minute = minute % MINUTES_PER_DAY;
        let meta = self.meta();
        let mut windows = meta.visit_times().peekable();
        let allowed_now = windows.peek().is_none() || windows.any(|w| w.contains(minute));
        let mut windowed: Option<Rate> = None;
        let mut all_day: Option<Rate> = None;
        for r in meta.request_rates() {
            let slot = match r.window {
                Some(w) if w.contains(minute) => &mut windowed,
                Some(_) => continue,
                None => &mut all_day,
            };
            if slot.is_none_or(|cur| r.rate.is_slower_than(&cur)) {
                *slot = Some(r.rate);
            }
        }
        VisitAdvice {
            allowed_now,
            rate: windowed.or(all_day),
        }
    }

    /// Visit advice at a Unix time (seconds since 1970-01-01 UTC).
    pub fn visit_at_unix(&self, unix_secs: u64) -> VisitAdvice {
        self.visit_at_minute(((unix_secs / 60) % u64::from(MINUTES_PER_DAY)) as u16)
    }
}

#[cfg(test)]
mod tests {
    use crate::types::{Rate, TimeWindow};

    #[test]
    fn windows_wrap_midnight_and_include_both_ends() {
        let w = TimeWindow {
            start: 17 * 60,
            end: 4 * 60 + 59,
        };
        assert!(w.contains(17 * 60));
        assert!(w.contains(0));
        assert!(w.contains(4 * 60 + 59));
        assert!(!w.contains(5 * 60));
        let day = TimeWindow {
            start: 6 * 60,
            end: 8 * 60 + 45,
        };
        assert!(day.contains(6 * 60) && day.contains(8 * 60 + 45));
        assert!(!day.contains(8 * 60 + 46) && !day.contains(5 * 60 + 59));
    }

    #[test]
    fn slower_is_fewer_documents_per_second() {
        let one_per_30m = Rate {
            documents: 1,
            seconds: 1800,
        };
        let hundred_per_day = Rate {
            documents: 100,
            seconds: 86_400,
        };
        assert!(one_per_30m.is_slower_than(&hundred_per_day));
        assert!(!hundred_per_day.is_slower_than(&one_per_30m));
        assert!((hundred_per_day.seconds_per_document() - 864.0).abs() < 1e-9);
    }
}
