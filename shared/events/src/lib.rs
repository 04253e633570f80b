//! Platform events (spec: Events): `{ id, type, tenantId, createdAt, data }`,
//! recorded after the change they report is stored, read in id order by the
//! event stream and the webhook worker.
//!
//! # Ids and ordering
//! An id is `{microseconds since the epoch, 16 digits}-{8 hex random}`, taken
//! from the platform clock when the event is written, stored in a partition per
//! tenant, sorted by id (the keys are [`alyt_store::repo::events`]'). Ids sort as text in time order,
//! and any stream or endpoint sees events in id order, merging the partitions
//! of the tenants it covers. No global counter: each tenant partition takes
//! about 1,000 writes/s on DynamoDB (the per-partition limit), and tenants add
//! up without bound.
//!
//! Resuming after an id never skips an event: readers only read events whose
//! id is older than `now - VISIBILITY_LAG`. An id is taken just before its write,
//! and a write that has not finished within the lag fails (the store's own
//! timeouts are shorter), so by the time an id is visible, no event with a
//! smaller id can still appear. The lag is the price: events reach streams
//! and webhooks at least that late.

//!
//! # Webhooks
//! [`signature`] signs and verifies `X-SVC-Signature`; [`webhook`] holds the
//! pure delivery rules (retry schedule, row moves, endpoint health);
//! [`outbound`] the SSRF policy and the HTTP sender; [`delivery`] the worker
//! ([`delivery::enqueue`], [`delivery::deliver_due`], [`delivery::reenable`])
//! over the rows of `alyt_store::repo::webhooks`; [`dispatch`] turns recorded
//! events into those rows; [`worker`] runs both passes and announces disabled
//! endpoints. [`stream`] is the server-sent event stream of both runtimes;
//! [`audience`] decides which events a LIVE key hears (those about its own
//! connector's integrations) on both.

pub mod audience;
pub mod binding;
pub mod delivery;
pub mod dispatch;
pub mod envelope;
pub mod log;
pub mod outbound;
pub mod signature;
pub mod stream;
pub mod webhook;
pub mod worker;

pub use audience::Audience;
pub use delivery::{DeliveryReport, DisabledEndpoint, deliver_due, enqueue, reenable};
pub use envelope::{EventEnvelope, EventId, EventKind, PlatformEvent};
pub use log::{EventLog, VISIBILITY_LAG};
pub use outbound::{HttpSender, OutboundPolicy, WebhookSender};
