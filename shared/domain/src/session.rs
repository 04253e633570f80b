//! Rules of sign-in sessions that must hold under concurrency; the store applies
//! them with conditional writes, these functions say what the outcome is.
//!
//! Refresh tokens form a family per sign-in. Each refresh presents the newest
//! token of the family and gets a new one; presenting any older (rotated) token
//! is reuse, which revokes the whole family and every access token issued from
//! it. Concurrent refreshes of one token: exactly one wins; the others present a
//! token that is by then rotated, which is reuse (the platform cannot tell a
//! retrying client from a thief replaying a stolen token).

/// What the store knows about a session family and the presented token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshView {
    pub family_revoked: bool,
    /// The generation of the family's newest token.
    pub current_generation: u32,
    /// The generation of the presented token.
    pub presented_generation: u32,
    /// The family's absolute expiry has passed.
    pub expired: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshOutcome {
    /// Issue generation `next` and retire the presented one.
    Rotate { next: u32 },
    /// A rotated token came back: revoke the family.
    ReuseDetected,
    /// The family is revoked or expired: refuse, change nothing.
    Refused,
}

pub fn decide_refresh(view: RefreshView) -> RefreshOutcome {
    if view.family_revoked || view.expired {
        RefreshOutcome::Refused
    } else if view.presented_generation == view.current_generation {
        RefreshOutcome::Rotate {
            next: view.current_generation + 1,
        }
    } else {
        RefreshOutcome::ReuseDetected
    }
}

/// Length of a TOTP time step (RFC 6238 default).
pub const TOTP_STEP_SECONDS: i64 = 30;
/// Steps of clock skew tolerated either side.
pub const TOTP_SKEW_STEPS: i64 = 1;

/// A TOTP code is accepted once: the matched step must be newer than the last
/// accepted one, which the store then advances with a conditional write.
/// `matching_steps` are the steps (within the skew window) whose code equals the
/// one presented.
pub fn accept_totp_step(matching_steps: &[i64], last_accepted: Option<i64>) -> Option<i64> {
    matching_steps
        .iter()
        .copied()
        .filter(|step| last_accepted.is_none_or(|last| *step > last))
        .max()
}

/// The steps a code presented at `unix_seconds` may belong to.
pub fn totp_window(unix_seconds: i64) -> impl Iterator<Item = i64> {
    let now = unix_seconds.div_euclid(TOTP_STEP_SECONDS);
    (now - TOTP_SKEW_STEPS)..=(now + TOTP_SKEW_STEPS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A model of one family driven by arbitrary presentations: the real family
    /// follows `decide_refresh`; the properties say what must always hold.
    #[derive(Debug, Clone)]
    enum Step {
        /// Present the token of this many generations back (0 = newest).
        Present(u32),
        Expire,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0u32..3).prop_map(Step::Present),
            1 => Just(Step::Expire),
        ]
    }

    proptest! {
        #[test]
        fn refresh_family_properties(steps in proptest::collection::vec(step(), 1..40)) {
            let mut current = 0u32;
            let mut revoked = false;
            let mut expired = false;
            for s in steps {
                match s {
                    Step::Expire => expired = true,
                    Step::Present(back) => {
                        let presented = current.saturating_sub(back);
                        let outcome = decide_refresh(RefreshView {
                            family_revoked: revoked,
                            current_generation: current,
                            presented_generation: presented,
                            expired,
                        });
                        match outcome {
                            RefreshOutcome::Rotate { next } => {
                                // Only the newest token of a live family rotates, one generation on.
                                prop_assert!(!revoked && !expired);
                                prop_assert_eq!(presented, current);
                                prop_assert_eq!(next, current + 1);
                                current = next;
                            }
                            RefreshOutcome::ReuseDetected => {
                                prop_assert!(presented < current);
                                revoked = true;
                            }
                            RefreshOutcome::Refused => prop_assert!(revoked || expired),
                        }
                    }
                }
                // Once revoked, a family never rotates again.
                if revoked {
                    let again = decide_refresh(RefreshView {
                        family_revoked: true,
                        current_generation: current,
                        presented_generation: current,
                        expired,
                    });
                    prop_assert_eq!(again, RefreshOutcome::Refused);
                }
            }
        }

        /// A step is accepted at most once, and steps only move forward.
        #[test]
        fn totp_steps_are_accepted_once(presentations in proptest::collection::vec(0i64..20, 1..30)) {
            let mut last: Option<i64> = None;
            let mut accepted = Vec::new();
            for step in presentations {
                if let Some(s) = accept_totp_step(&[step], last) {
                    prop_assert!(last.is_none_or(|l| s > l));
                    prop_assert!(!accepted.contains(&s));
                    accepted.push(s);
                    last = Some(s);
                }
            }
        }
    }

    #[test]
    fn totp_window_is_one_step_either_side() {
        assert_eq!(totp_window(60).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(totp_window(89).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(accept_totp_step(&[2, 3], Some(2)), Some(3));
        assert_eq!(accept_totp_step(&[2], Some(2)), None);
    }
}
