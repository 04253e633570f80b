//! Quotas (platform defaults and per-developer overrides) and usage counters.
//!
//! Keys:
//!
//! | item | pk | sk | notes |
//! |---|---|---|---|
//! | override | `DEVELOPER#{dev}` | `QUOTA#{kind}` | set by staff; beside the developer's keys |
//! | platform default | `CONFIG#quota` | `{kind}` | absent: the documented default of [`QuotaKind::documented_default`] |
//! | window counter | `USAGE#{dev}#{kind}` | `{windowKey}` (`2026-11-21`, `2026-11`) | `ADD`; `ttl` a day after the window |
//! | standing count | `USAGE#{dev}#{kind}` | `CURRENT` | set to the current number (virtual devices); no `ttl` |
//! | key counter | `USAGE#KEY#{keyId}` | `{dayKey}` | requests of one key per UTC day; `ttl` a day after |
//! | burst counter | `USAGE#{dev}#REQUESTS#MIN` | `{unixMinute:012}` | `ttl` two minutes after |
//!
//! The count is the numeric attribute `count`. Every counter moves with one
//! update that returns the new value; a counter bounded by a quota moves with a
//! conditional update (`count <= limit - by`), so it never passes the limit and
//! a refused use is not counted. Reads of an effective quota and of a whole
//! usage picture are one batch get each.

use std::collections::HashMap;

use alyt_domain::ids::{DeveloperId, KeyId, UserId};
use alyt_domain::quota::{QuotaKind, QuotaSource, QuotaValue, QuotaWindow};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;

use super::ts;
use crate::{Condition, Item, Key, Store, StoreError, UpdateAction};

/// The attribute holding a counter's value.
pub const COUNT: &str = "count";
/// The sort key of a standing count.
pub const STANDING: &str = "CURRENT";

fn override_key(developer: DeveloperId, kind: QuotaKind) -> Key {
    Key::new(format!("DEVELOPER#{developer}"), format!("QUOTA#{kind}"))
}

fn default_key(kind: QuotaKind) -> Key {
    Key::new("CONFIG#quota", kind.as_str())
}

/// A stored quota value (an override or a configured default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaRecord {
    pub kind: QuotaKind,
    pub ceiling: u64,
    pub window: QuotaWindow,
    #[serde(default)]
    pub burst_per_minute: Option<u32>,
    /// Who set it (staff), when known.
    #[serde(default)]
    pub updated_by: Option<UserId>,
    #[serde(with = "ts::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl QuotaRecord {
    pub fn value(&self) -> QuotaValue {
        QuotaValue {
            ceiling: self.ceiling,
            window: self.window,
            burst_per_minute: self.burst_per_minute,
        }
    }
}

/// The quota that applies to a developer for one kind, and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveQuota {
    pub kind: QuotaKind,
    pub value: QuotaValue,
    pub source: QuotaSource,
}

/// The effective quota of every kind, in [`QuotaKind::ALL`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveQuotas(pub [EffectiveQuota; 3]);

impl EffectiveQuotas {
    pub fn get(&self, kind: QuotaKind) -> &EffectiveQuota {
        // ALL holds every kind once, in this order.
        &self.0[QuotaKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)]
    }

    pub fn iter(&self) -> impl Iterator<Item = &EffectiveQuota> {
        self.0.iter()
    }
}

/// A configured default, or the documented one when the platform has none.
fn default_of(kind: QuotaKind, items: &HashMap<Key, Item>) -> Result<QuotaValue, StoreError> {
    match items.get(&default_key(kind)) {
        Some(item) => Ok(item.to_record::<QuotaRecord>()?.value()),
        None => Ok(kind.documented_default()),
    }
}

fn by_key(items: Vec<Item>) -> HashMap<Key, Item> {
    items.into_iter().map(|i| (i.key(), i)).collect()
}

pub struct Quotas<'a>(pub &'a dyn Store);

impl Quotas<'_> {
    /// The platform defaults of every kind (one batch get).
    pub async fn defaults(&self) -> Result<[(QuotaKind, QuotaValue); 3], StoreError> {
        let keys: Vec<Key> = QuotaKind::ALL.into_iter().map(default_key).collect();
        let items = by_key(self.0.batch_get(&keys).await?);
        let mut out = QuotaKind::ALL.map(|k| (k, k.documented_default()));
        for (kind, value) in &mut out {
            *value = default_of(*kind, &items)?;
        }
        Ok(out)
    }

    /// Configures the platform default of `kind` (operators; no API yet).
    pub async fn set_default(
        &self,
        kind: QuotaKind,
        value: QuotaValue,
        at: OffsetDateTime,
    ) -> Result<(), StoreError> {
        let record = record(kind, value, None, at);
        self.0
            .put(Item::from_record(default_key(kind), &record)?, None)
            .await
    }

    /// The developer's effective quotas: each override, else the default (one
    /// batch get of the three overrides and the three defaults).
    pub async fn effective(&self, developer: DeveloperId) -> Result<EffectiveQuotas, StoreError> {
        let keys: Vec<Key> = QuotaKind::ALL
            .into_iter()
            .flat_map(|k| [override_key(developer, k), default_key(k)])
            .collect();
        let items = by_key(self.0.batch_get(&keys).await?);
        let mut out = QuotaKind::ALL.map(|kind| EffectiveQuota {
            kind,
            value: kind.documented_default(),
            source: QuotaSource::Default,
        });
        for quota in &mut out {
            match items.get(&override_key(developer, quota.kind)) {
                Some(item) => {
                    quota.value = item.to_record::<QuotaRecord>()?.value();
                    quota.source = QuotaSource::Override;
                }
                None => quota.value = default_of(quota.kind, &items)?,
            }
        }
        Ok(EffectiveQuotas(out))
    }

    /// Sets the developer's override of `kind` (the value is validated by the caller).
    pub async fn set_override(
        &self,
        developer: DeveloperId,
        kind: QuotaKind,
        value: QuotaValue,
        by: Option<UserId>,
        at: OffsetDateTime,
    ) -> Result<(), StoreError> {
        let record = record(kind, value, by, at);
        self.0
            .put(
                Item::from_record(override_key(developer, kind), &record)?,
                None,
            )
            .await
    }

    /// Drops the developer's override of `kind`: the default applies again.
    pub async fn remove_override(
        &self,
        developer: DeveloperId,
        kind: QuotaKind,
    ) -> Result<(), StoreError> {
        self.0
            .delete(&override_key(developer, kind), None)
            .await
            .map(|_| ())
    }
}

fn record(
    kind: QuotaKind,
    value: QuotaValue,
    by: Option<UserId>,
    at: OffsetDateTime,
) -> QuotaRecord {
    QuotaRecord {
        kind,
        ceiling: value.ceiling,
        window: value.window,
        burst_per_minute: value.burst_per_minute,
        updated_by: by,
        updated_at: at,
    }
}

/// One usage counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Counter {
    /// A developer's uses of `kind` in one window (`QuotaWindow::key`).
    Window {
        developer: DeveloperId,
        kind: QuotaKind,
        window_key: String,
    },
    /// How many of `kind` the developer holds now (virtual devices).
    Standing {
        developer: DeveloperId,
        kind: QuotaKind,
    },
    /// Requests of one key in one UTC day (`QuotaWindow::Day.key`).
    KeyDay { key: KeyId, day: String },
    /// A developer's requests in one Unix minute.
    Burst { developer: DeveloperId, minute: i64 },
}

impl Counter {
    pub fn key(&self) -> Key {
        match self {
            Counter::Window {
                developer,
                kind,
                window_key,
            } => Key::new(format!("USAGE#{developer}#{kind}"), window_key.as_str()),
            Counter::Standing { developer, kind } => {
                Key::new(format!("USAGE#{developer}#{kind}"), STANDING)
            }
            Counter::KeyDay { key, day } => Key::new(format!("USAGE#KEY#{key}"), day.as_str()),
            Counter::Burst { developer, minute } => Key::new(
                format!("USAGE#{developer}#{}#MIN", QuotaKind::Requests),
                format!("{minute:012}"),
            ),
        }
    }
}

/// The outcome of [`Usage::add_within`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Counted; the count is now this.
    Counted(u64),
    /// Not counted: it would have passed the limit. The count as it is, when
    /// the store said (a limit below the step refuses without asking).
    Refused(Option<u64>),
}

fn count_of(item: &Item) -> u64 {
    item.get_i64(COUNT)
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0)
}

fn step(by: u64) -> Result<i64, StoreError> {
    i64::try_from(by).map_err(|_| StoreError::Invalid(format!("cannot count {by} at once")))
}

pub struct Usage<'a>(pub &'a dyn Store);

impl Usage<'_> {
    /// Adds `by` to the counter unless the count would pass `limit`: one
    /// conditional update, so concurrent uses never count past the limit.
    /// `expires_at` (Unix seconds) becomes the counter's `ttl`.
    pub async fn add_within(
        &self,
        counter: &Counter,
        by: u64,
        limit: u64,
        expires_at: Option<i64>,
    ) -> Result<Counted, StoreError> {
        if by > limit {
            return Ok(Counted::Refused(None));
        }
        let room = i64::try_from(limit - by).unwrap_or(i64::MAX);
        let condition = Condition::not_exists(COUNT).or(Condition::le(COUNT, room));
        match self
            .0
            .update(
                &counter.key(),
                actions(step(by)?, expires_at),
                Some(condition),
            )
            .await
        {
            Ok(item) => Ok(Counted::Counted(count_of(&item))),
            Err(StoreError::ConditionFailed { current }) => Ok(Counted::Refused(Some(
                current.as_deref().map_or(0, count_of),
            ))),
            Err(e) => Err(e),
        }
    }

    /// Adds `by` (negative to give back) to the counter; returns the new count.
    pub async fn add(
        &self,
        counter: &Counter,
        by: i64,
        expires_at: Option<i64>,
    ) -> Result<i64, StoreError> {
        let item = self
            .0
            .update(&counter.key(), actions(by, expires_at), None)
            .await?;
        Ok(item.get_i64(COUNT).unwrap_or(0))
    }

    /// Sets a standing count to the number that exists now (the simulator
    /// reports its current virtual devices this way).
    pub async fn set_count(
        &self,
        developer: DeveloperId,
        kind: QuotaKind,
        count: u64,
    ) -> Result<(), StoreError> {
        let counter = Counter::Standing { developer, kind };
        self.0
            .update(
                &counter.key(),
                vec![UpdateAction::Set(COUNT.into(), json!(step(count)?))],
                None,
            )
            .await
            .map(|_| ())
    }

    /// The counts of `counters`, in order (0 for a counter never used), in one
    /// batch get per hundred counters.
    pub async fn counts(&self, counters: &[Counter]) -> Result<Vec<u64>, StoreError> {
        let keys: Vec<Key> = counters.iter().map(Counter::key).collect();
        let found = by_key(super::get_all(self.0, &keys).await?);
        Ok(keys
            .iter()
            .map(|k| found.get(k).map_or(0, count_of))
            .collect())
    }
}

fn actions(by: i64, expires_at: Option<i64>) -> Vec<UpdateAction> {
    let mut actions = vec![UpdateAction::Add(COUNT.into(), by)];
    if let Some(ttl) = expires_at {
        actions.push(UpdateAction::Set(crate::attr::TTL.into(), json!(ttl)));
    }
    actions
}

// ---------------------------------------------------------------------------
// The admin list of developers (gsi1 `DEVELOPERS` / `{createdAt}#{dev}`, written
// by `developers::developer_item`). It belongs with the other developer reads
// in `developers.rs`; it sits here until that file is free to change, and the
// call site (`Developers::admin_page`) stays the same when it moves.

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::SqliteStore;
    use alyt_domain::SystemClock;
    use std::sync::Arc;

    fn store() -> SqliteStore {
        SqliteStore::in_memory(Arc::new(SystemClock)).unwrap()
    }

    #[tokio::test]
    async fn effective_quota_is_the_override_else_the_default() {
        let store = store();
        let quotas = Quotas(&store);
        let dev = DeveloperId::new();
        let now = OffsetDateTime::now_utc();
        let effective = quotas.effective(dev).await.unwrap();
        for quota in effective.iter() {
            assert_eq!(quota.value, quota.kind.documented_default());
            assert_eq!(quota.source, QuotaSource::Default);
        }
        let configured = QuotaValue {
            ceiling: 7,
            window: QuotaWindow::Month,
            burst_per_minute: None,
        };
        quotas
            .set_default(QuotaKind::MqttMessages, configured, now)
            .await
            .unwrap();
        let three = QuotaValue {
            ceiling: 3,
            window: QuotaWindow::Day,
            burst_per_minute: Some(2),
        };
        quotas
            .set_override(dev, QuotaKind::Requests, three, None, now)
            .await
            .unwrap();
        let effective = quotas.effective(dev).await.unwrap();
        assert_eq!(effective.get(QuotaKind::Requests).value, three);
        assert_eq!(
            effective.get(QuotaKind::Requests).source,
            QuotaSource::Override
        );
        assert_eq!(effective.get(QuotaKind::MqttMessages).value, configured);
        assert_eq!(
            effective.get(QuotaKind::MqttMessages).source,
            QuotaSource::Default
        );
        let defaults = quotas.defaults().await.unwrap();
        assert_eq!(defaults[2], (QuotaKind::MqttMessages, configured));
        assert_eq!(
            defaults[0],
            (
                QuotaKind::Requests,
                QuotaKind::Requests.documented_default()
            )
        );
        // Another developer is untouched by the override.
        let other = quotas.effective(DeveloperId::new()).await.unwrap();
        assert_eq!(other.get(QuotaKind::Requests).source, QuotaSource::Default);
        quotas
            .remove_override(dev, QuotaKind::Requests)
            .await
            .unwrap();
        let effective = quotas.effective(dev).await.unwrap();
        assert_eq!(
            effective.get(QuotaKind::Requests).source,
            QuotaSource::Default
        );
    }

    #[tokio::test]
    async fn bounded_counters_stop_at_the_limit() {
        let store = store();
        let usage = Usage(&store);
        let counter = Counter::Window {
            developer: DeveloperId::new(),
            kind: QuotaKind::Requests,
            window_key: "2026-11-21".into(),
        };
        let mut seen = Vec::new();
        for _ in 0..5 {
            seen.push(
                usage
                    .add_within(&counter, 1, 3, Some(i64::MAX))
                    .await
                    .unwrap(),
            );
        }
        assert_eq!(
            seen,
            [
                Counted::Counted(1),
                Counted::Counted(2),
                Counted::Counted(3),
                Counted::Refused(Some(3)),
                Counted::Refused(Some(3)),
            ]
        );
        assert_eq!(
            usage.add_within(&counter, 1, 0, None).await.unwrap(),
            Counted::Refused(None)
        );
        assert_eq!(usage.add(&counter, -1, None).await.unwrap(), 2);
        assert_eq!(
            usage.counts(std::slice::from_ref(&counter)).await.unwrap(),
            [2]
        );
    }

    #[tokio::test]
    async fn concurrent_uses_never_pass_the_limit() {
        let store = Arc::new(store());
        let counter = Counter::Burst {
            developer: DeveloperId::new(),
            minute: 42,
        };
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let store = store.clone();
            let counter = counter.clone();
            tasks.push(tokio::spawn(async move {
                Usage(&*store)
                    .add_within(&counter, 1, 7, None)
                    .await
                    .unwrap()
            }));
        }
        let mut counted = 0;
        for task in tasks {
            if matches!(task.await.unwrap(), Counted::Counted(_)) {
                counted += 1;
            }
        }
        assert_eq!(counted, 7);
        assert_eq!(Usage(&*store).counts(&[counter]).await.unwrap(), [7]);
    }

    #[tokio::test]
    async fn standing_counts_are_set_and_read_in_order() {
        let store = store();
        let usage = Usage(&store);
        let dev = DeveloperId::new();
        usage
            .set_count(dev, QuotaKind::VirtualDevices, 5)
            .await
            .unwrap();
        usage
            .set_count(dev, QuotaKind::VirtualDevices, 4)
            .await
            .unwrap();
        let key = KeyId::new();
        usage
            .add(
                &Counter::KeyDay {
                    key,
                    day: "2026-11-21".into(),
                },
                2,
                None,
            )
            .await
            .unwrap();
        let counts = usage
            .counts(&[
                Counter::KeyDay {
                    key,
                    day: "2026-11-20".into(),
                },
                Counter::Standing {
                    developer: dev,
                    kind: QuotaKind::VirtualDevices,
                },
                Counter::KeyDay {
                    key,
                    day: "2026-11-21".into(),
                },
            ])
            .await
            .unwrap();
        assert_eq!(counts, [0, 4, 2]);
    }

    #[test]
    fn keys_follow_the_documented_layout() {
        let dev = DeveloperId::new();
        let key = KeyId::new();
        assert_eq!(
            Counter::Window {
                developer: dev,
                kind: QuotaKind::MqttMessages,
                window_key: "2026-11".into()
            }
            .key(),
            Key::new(format!("USAGE#{dev}#MQTT_MESSAGES"), "2026-11")
        );
        assert_eq!(
            Counter::KeyDay {
                key,
                day: "2026-11-21".into()
            }
            .key(),
            Key::new(format!("USAGE#KEY#{key}"), "2026-11-21")
        );
        assert_eq!(
            Counter::Burst {
                developer: dev,
                minute: 29_000_000
            }
            .key(),
            Key::new(format!("USAGE#{dev}#REQUESTS#MIN"), "000029000000")
        );
        assert_eq!(
            override_key(dev, QuotaKind::VirtualDevices),
            Key::new(format!("DEVELOPER#{dev}"), "QUOTA#VIRTUAL_DEVICES")
        );
        assert_eq!(
            default_key(QuotaKind::Requests),
            Key::new("CONFIG#quota", "REQUESTS")
        );
    }
}
