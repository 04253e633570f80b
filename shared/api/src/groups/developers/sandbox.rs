//! Email verification and the developer's sandbox: one transaction spends the
//! verification token, moves the developer to ACTIVE and creates the sandbox
//! tenant (code in the reserved X band) with one household, one home, four rooms
//! and the developer as the tenant's ADMIN and the household's OWNER. The
//! developer write is conditioned on there being no sandbox yet, so however
//! often (or concurrently) verification runs, there is one sandbox. Then the
//! five virtual devices of a fresh sandbox are registered in its rooms
//! ([`super::simulator::provision_sandbox`]); that never fails the
//! verification, and the runner starts whatever is stored when it starts.
//! The use cases are [`alyt_app::developers::sandbox`]'s.

pub use alyt_app::developers::sandbox::{
    SANDBOX_HOME, SANDBOX_HOUSEHOLD, SANDBOX_ROOMS, Verification, reload, sandbox_code,
    verify_and_provision,
};
