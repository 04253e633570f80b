//! Platform events: `{ id, type, tenantId, createdAt, data }`, recorded after
//! the change they report is stored, read in id order by the event stream and
//! the webhook worker.
//!
//! # Ids and ordering
//! An id is `{microseconds since the epoch, 16 digits}-{8 hex}`, stored in a
//! tenant's log, sorted by id (the keys are [`alyt_store::repo::events`]').
//! The store gives an event its id when the transaction recording it commits
//! (`alyt_store::resolve_appends`): later than the clock and than every id
//! its shard already has, on the condition that the shard's head item still
//! says so. A tenant's log is one shard unless an operator grew it (see
//! docs/SCALE.md); an event goes to the shard of its home, so a home's
//! events are in commit order, and events of different homes in id order
//! (their time, to within the writers' clocks). A reader reads every shard
//! up to the lowest head, after moving idle shards' heads up to the highest
//! (`alyt_store::logs`): it never later finds a new event below an id it
//! read, and reads at once (no visibility lag). So one id is a whole
//! tenant's position, however many shards: `after=`, `Last-Event-ID` and
//! the dispatcher's cursor are unchanged by sharding.
//!
//! Ceiling and how to raise it: every event-recording transaction moves its
//! shard's head item, so on DynamoDB a shard's changes that raise events
//! are serialised on one item (keep it under about 300 transactions a
//! second: conflicting writers retry with a pause). SQLite has one writer
//! anyway. Tenants are independent and add up without bound; a tenant
//! beyond one head grows its log to up to 128 shards
//! (`alyt_store::repo::events::Events::grow`, docs/SCALE.md's table).
//!
//! A reader of several tenants (a LIVE key in several households) keeps one
//! position per tenant while connected; a single resume id (`after=`,
//! `Last-Event-ID`) names a position in one log only, so such a reader
//! resumes every log [`log::RESUME_GRACE`] before it and may receive those
//! events again (at least once; ids tell them apart). A reader of one tenant
//! (every session and DEV key, every webhook endpoint) resumes exactly.
//!
//! # Webhooks
//! [`signature`] signs and verifies `X-SVC-Signature`; [`webhook`] holds the
//! pure delivery rules (retry schedule, row moves, endpoint health);
//! [`outbound`] the SSRF policy and the HTTP sender; [`bus`] the port to a
//! developer's EventBridge bus; [`delivery`] the worker
//! ([`delivery::enqueue`], [`delivery::deliver_due`], [`delivery::reenable`])
//! over the rows of `alyt_store::repo::webhooks`; [`dispatch`] turns recorded
//! events into those rows; [`recovery`] sends an endpoint what it missed over
//! a range, a batch per pass; [`worker`] runs the passes and announces
//! disabled endpoints. [`stream`] is the server-sent event stream of both runtimes;
//! [`audience`] decides which events a LIVE key hears (those about its own
//! connector's integrations) on both.

pub mod audience;
pub mod binding;
pub mod bus;
pub mod catalogue;
pub mod delivery;
pub mod deprecations;
pub mod dispatch;
pub mod envelope;
pub mod log;
pub mod outbound;
pub mod recovery;
pub mod signature;
pub mod stream;
pub mod webhook;
pub mod worker;

pub use audience::Audience;
pub use delivery::{DeliveryReport, DisabledEndpoint, deliver_due, enqueue, reenable};
pub use envelope::{EventEnvelope, EventId, EventKind, PlatformEvent};
pub use log::{Cursor, EventLog};
pub use outbound::{HttpSender, OutboundPolicy, WebhookSender};
