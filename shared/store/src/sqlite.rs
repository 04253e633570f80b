//! The embedded adapter: one SQLite database file (WAL, synchronous=FULL, so a
//! committed write survives a power cut; a [`Durability::Written`] one
//! survives the process dying). Every write runs in an IMMEDIATE transaction,
//! which serialises writers; conditions are evaluated inside it, so a conditional
//! write is atomic exactly as on DynamoDB.

use std::path::Path;
use std::sync::{Arc, Mutex};

use alyt_domain::Clock;
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use serde_json::{Map, Value};

use crate::{
    CancelReason, Condition, Durability, Index, Item, Key, MAX_BATCH_GET_KEYS, Page, PageKey,
    Query, SortKey, Store, StoreError, TxWrite, UpdateAction, appended_logs, appended_shards,
    head_last, log_head_key, resolve_appends, shards_of, validate_item, validate_key,
    validate_transaction, validate_update,
};

/// How often the local platform purges expired items (reads hide them at
/// once; DynamoDB's TTL deletes them within days).
pub const PURGE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS items (
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    doc TEXT NOT NULL,
    gsi1pk TEXT, gsi1sk TEXT,
    gsi2pk TEXT, gsi2sk TEXT,
    gsi3pk TEXT, gsi3sk TEXT,
    expires_at INTEGER,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS gsi1 ON items (gsi1pk, gsi1sk, pk, sk) WHERE gsi1pk IS NOT NULL AND gsi1sk IS NOT NULL;
CREATE INDEX IF NOT EXISTS gsi2 ON items (gsi2pk, gsi2sk, pk, sk) WHERE gsi2pk IS NOT NULL AND gsi2sk IS NOT NULL;
CREATE INDEX IF NOT EXISTS gsi3 ON items (gsi3pk, gsi3sk, pk, sk) WHERE gsi3pk IS NOT NULL AND gsi3sk IS NOT NULL;
CREATE INDEX IF NOT EXISTS expiry ON items (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS feed (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    doc TEXT NOT NULL
);
";

/// One writer connection (every write and transaction, on the blocking
/// pool: a commit waits for its fsync) and a few reader connections (WAL
/// lets them read the last committed state while the writer works). A read
/// runs on the calling task's thread: a point read or a page of a query
/// takes microseconds from the page cache, far less than a hop to the
/// blocking pool and back (measured: 1.9x the requests a second of a session
/// read path), and a query reads at most one page (1,000 items). A
/// checkpointer thread with a connection of its own moves the WAL into the
/// database file ([`spawn_checkpointer`]).
#[derive(Clone)]
pub struct SqliteStore {
    writer: std::sync::mpsc::Sender<Queued>,
    /// Decoded items the point reads saw, until a writer changes them
    /// (shared by every store on the same database file in this process).
    items: Arc<ItemCache>,
    /// Empty for an in-memory database (other connections would not see
    /// it): reads then use the writer connection.
    readers: Arc<Vec<Mutex<Connection>>>,
    next_reader: Arc<std::sync::atomic::AtomicUsize>,
    clock: Arc<dyn Clock>,
    /// Keeps the checkpointer running while any clone of the store lives
    /// (None for an in-memory database, which has no WAL).
    _checkpoints: Option<Arc<std::sync::mpsc::Sender<()>>>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path, clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(backend)?;
        let mut store = Self::init(conn, clock, ItemCache::of_file(path))?;
        let count = std::thread::available_parallelism().map_or(2, |n| n.get()) + 1;
        let readers = (0..count)
            .map(|_| {
                let reader = Connection::open_with_flags(
                    path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(backend)?;
                reader
                    .busy_timeout(std::time::Duration::from_secs(5))
                    .map_err(backend)?;
                keep_plans(&reader)?;
                Ok(Mutex::new(reader))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        store.readers = Arc::new(readers);
        store._checkpoints = Some(Arc::new(spawn_checkpointer(path)?));
        Ok(store)
    }

    /// A private database in memory; for unit tests only (not durable).
    pub fn in_memory(clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        Self::init(
            Connection::open_in_memory().map_err(backend)?,
            clock,
            Arc::default(),
        )
    }

    fn init(
        conn: Connection,
        clock: Arc<dyn Clock>,
        items: Arc<ItemCache>,
    ) -> Result<Self, StoreError> {
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(backend)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(backend)?;
        // Each job runs in a savepoint, whose undo copy of every page it
        // changes goes to a temporary file by default: as many bytes written
        // as the WAL gets again (measured under M2's load: 72 KB a message).
        conn.pragma_update(None, "temp_store", "MEMORY")
            .map_err(backend)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(backend)?;
        // The checkpointer copies the WAL into the database off the writer
        // (see spawn_checkpointer); the writer only checkpoints itself, in
        // its commit, if the WAL grew this large anyway.
        conn.pragma_update(None, "wal_autocheckpoint", WAL_BACKSTOP_PAGES)
            .map_err(backend)?;
        conn.execute_batch(SCHEMA).map_err(backend)?;
        keep_plans(&conn)?;
        Ok(Self {
            writer: spawn_writer(conn, items.clone())?,
            items,
            readers: Arc::new(Vec::new()),
            next_reader: Arc::default(),
            clock,
            _checkpoints: None,
        })
    }

    /// Runs a read on a reader connection (the writer's for an in-memory
    /// database), on this thread.
    async fn read<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        if self.readers.is_empty() {
            return self.run(move |conn| work(conn)).await;
        }
        let on_this_thread = || {
            // A free reader if there is one, else wait for the next in turn.
            let free = self.readers.iter().find_map(|r| r.try_lock().ok());
            let conn = match free {
                Some(conn) => conn,
                None => {
                    let turn = self
                        .next_reader
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    self.readers[turn % self.readers.len()]
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                }
            };
            work(&conn)
        };
        on_this_thread()
    }

    /// Deletes expired items (reads already hide them); returns how many went.
    pub async fn purge_expired(&self) -> Result<usize, StoreError> {
        let now = self.clock.unix_seconds();
        self.run(move |conn| {
            conn.execute(
                "DELETE FROM items WHERE expires_at IS NOT NULL AND expires_at <= ?1",
                params![now],
            )
            .map_err(backend)
        })
        .await
    }

    /// Runs `work` on the writer, inside the current group's transaction
    /// (its own savepoint: an error undoes exactly its writes), and answers
    /// once the group has committed.
    async fn run<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.run_with(Durability::Synced, work).await
    }

    /// [`Self::run`], its group committed as lasting as `durability` asks.
    async fn run_with<T, F>(&self, durability: Durability, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let result = match conn {
                Ok(conn) => work(conn),
                Err(e) => Err(e),
            };
            let keep = result.is_ok();
            let reply: Reply = Box::new(move |commit: Option<StoreError>| {
                let _ = answer.send(match commit {
                    Some(e) => Err(e),
                    None => result,
                });
            });
            (keep, reply)
        });
        self.writer
            .send(Queued { job, durability })
            .map_err(|_| StoreError::Unavailable("the store's writer has stopped".into()))?;
        answered
            .await
            .map_err(|_| StoreError::Unavailable("the store's writer has stopped".into()))?
    }
}

/// What the writer hands a job: its connection, inside the group's
/// transaction, or why the group could not begin.
type Job = Box<dyn FnOnce(Result<&Connection, StoreError>) -> (bool, Reply) + Send>;
/// Answers a job once its group committed (or failed to: the error).
type Reply = Box<dyn FnOnce(Option<StoreError>) + Send>;

/// A job and how lasting its commit must be.
struct Queued {
    job: Job,
    durability: Durability,
}

/// Jobs one transaction takes at most.
const GROUP: usize = 64;

/// The writer thread: it takes the jobs waiting (up to [`GROUP`]), runs
/// them in order in one transaction, each in a savepoint, and commits once:
/// one fsync for the group instead of one per write (group commit), so
/// concurrent writers (ingest's shards, requests) share the disk's
/// latency. Each job sees the ones before it, as if they ran one by one.
/// A group of [`Durability::Written`] jobs only commits with
/// synchronous=NORMAL (no fsync: WAL mode keeps it consistent, and the
/// next synced commit or checkpoint puts it on disk); any synced job makes
/// the whole group synced.
fn spawn_writer(
    conn: Connection,
    items: Arc<ItemCache>,
) -> Result<std::sync::mpsc::Sender<Queued>, StoreError> {
    let (jobs, queue) = std::sync::mpsc::channel::<Queued>();
    std::thread::Builder::new()
        .name("alyt-sqlite-writer".into())
        .spawn(move || {
            let mut syncing = Durability::Synced;
            while let Ok(first) = queue.recv() {
                let mut durability = first.durability;
                let mut group = vec![first.job];
                while group.len() < GROUP {
                    match queue.try_recv() {
                        Ok(queued) => {
                            if queued.durability == Durability::Synced {
                                durability = Durability::Synced;
                            }
                            group.push(queued.job);
                        }
                        Err(_) => break,
                    }
                }
                if durability != syncing {
                    let level = match durability {
                        Durability::Synced => "FULL",
                        Durability::Written => "NORMAL",
                    };
                    // Outside a transaction, so it holds for the next commit.
                    match conn.pragma_update(None, "synchronous", level) {
                        Ok(()) => syncing = durability,
                        Err(e) => {
                            tracing::warn!(error = %e, "the commit's durability could not be set")
                        }
                    }
                }
                commit_group(&conn, group, &items);
            }
        })
        .map_err(|e| StoreError::Unavailable(format!("the store's writer: {e}")))?;
    Ok(jobs)
}

/// How often the checkpointer copies committed pages from the WAL into the
/// database file.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// The WAL size (pages) at which the writer checkpoints in its own commit:
/// only when the checkpointer falls far behind (40 MB of 4 KiB pages).
const WAL_BACKSTOP_PAGES: i64 = 10_000;

/// Checkpoints the WAL from a connection of its own, every
/// [`CHECKPOINT_EVERY`], until the returned sender (held by the store) is
/// dropped. SQLite's automatic checkpoint runs inside the commit that
/// crosses 1,000 pages, on the writer, with two fsyncs: every commit queued
/// behind it waited (measured: the worst publish->PUBACK waits under M2's
/// load), and while readers kept the WAL from being reset every commit
/// tried again. A passive checkpoint here never blocks the writer or a
/// reader; the writer restarts the WAL from its start once one finished.
fn spawn_checkpointer(path: &Path) -> Result<std::sync::mpsc::Sender<()>, StoreError> {
    let conn = Connection::open(path).map_err(backend)?;
    let (keep, kept) = std::sync::mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("alyt-sqlite-checkpointer".into())
        .spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                kept.recv_timeout(CHECKPOINT_EVERY)
            {
                if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                    tracing::warn!(error = %e, "a WAL checkpoint failed; the next one tries again");
                }
            }
        })
        .map_err(|e| StoreError::Unavailable(format!("the store's checkpointer: {e}")))?;
    Ok(keep)
}

/// Every way out forgets the items the group wrote from `items` before the
/// first reply: a writer that heard its write committed reads it back.
fn commit_group(conn: &Connection, group: Vec<Job>, items: &ItemCache) {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        let e = backend(e);
        for job in group {
            let (_, reply) = job(Err(StoreError::Unavailable(e.to_string())));
            reply(None);
        }
        return;
    }
    let mut replies = Vec::with_capacity(group.len());
    for job in group {
        if let Err(e) = conn.execute_batch("SAVEPOINT job") {
            let (_, reply) = job(Err(backend(e)));
            replies.push(reply);
            continue;
        }
        // A job that panics loses its answer (its caller hears that the
        // writer stopped) and its writes; the writer goes on.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(Ok(conn))));
        let (keep, reply): (bool, Reply) = match ran {
            Ok(ran) => ran,
            Err(_) => (false, Box::new(|_| {})),
        };
        let closed = if keep {
            conn.execute_batch("RELEASE job")
        } else {
            conn.execute_batch("ROLLBACK TO job; RELEASE job")
        };
        if let Err(e) = closed {
            // The transaction's state is unknown: give it all up.
            let e = backend(e);
            let _ = conn.execute_batch("ROLLBACK");
            items.forget_written();
            replies.push(reply);
            for reply in replies {
                reply(Some(StoreError::Unavailable(e.to_string())));
            }
            return;
        }
        replies.push(reply);
    }
    items.commit_begins();
    let committed = conn.execute_batch("COMMIT").map_err(backend);
    if committed.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    items.forget_written();
    for reply in replies {
        reply(
            committed
                .as_ref()
                .err()
                .map(|e| StoreError::Unavailable(e.to_string())),
        );
    }
}

/// Prepared statements each connection keeps: the item reads and writes
/// plus the query shapes (one per key condition and index). Preparing a
/// statement costs more than running one of these point reads.
const STATEMENT_CACHE: usize = 64;

/// Lets a connection reuse its prepared statements: a cache of them, and the
/// query planner's stability guarantee. Without it SQLite re-prepares a
/// statement whenever a parameter its plan looked at is bound again (with
/// the bundled build's STAT4 that is most of ours): a list query was parsed
/// and planned anew on every call (measured: 9% of a device list's time).
/// Our plans are key lookups that no bound value could improve.
fn keep_plans(conn: &Connection) -> Result<(), StoreError> {
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .map_err(backend)?;
    Ok(())
}

fn backend(e: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

fn decode(doc: &str) -> Result<Item, StoreError> {
    let attrs: Map<String, Value> = serde_json::from_str(doc)
        .map_err(|e| StoreError::Unavailable(format!("stored item is corrupt: {e}")))?;
    Item::from_attrs(attrs)
}

/// The item at `key` when `condition` holds of it; the item as it is in a
/// `ConditionFailed` otherwise (how every conditional write starts).
fn read_if(
    conn: &Connection,
    key: &Key,
    condition: &Option<Condition>,
) -> Result<Option<Item>, StoreError> {
    let current = read_raw(conn, key)?;
    if !check(condition, current.as_ref()) {
        return Err(StoreError::ConditionFailed {
            current: current.map(Box::new),
        });
    }
    Ok(current)
}

/// Reads one item inside a transaction, expired or not (conditions see it).
fn read_raw(conn: &Connection, key: &Key) -> Result<Option<Item>, StoreError> {
    conn.prepare_cached("SELECT doc FROM items WHERE pk = ?1 AND sk = ?2")
        .map_err(backend)?
        .query_row(params![key.pk, key.sk], |row| row.get::<_, String>(0))
        .optional()
        .map_err(backend)?
        .map(|doc| decode(&doc))
        .transpose()
}

fn write_raw(conn: &Connection, item: &Item) -> Result<(), StoreError> {
    ItemCache::note_written(item.key());
    let doc = item.to_json_checked()?;
    // A new item marked for the feed is recorded there in the same
    // transaction, as DynamoDB's stream records an INSERT.
    let fed = item.get_str(crate::attr::FEED).is_some()
        && conn
            .prepare_cached("SELECT 1 FROM items WHERE pk = ?1 AND sk = ?2")
            .map_err(backend)?
            .query_row(params![item.pk(), item.sk()], |_| Ok(()))
            .optional()
            .map_err(backend)?
            .is_none();
    if fed {
        conn.prepare_cached("INSERT INTO feed (doc) VALUES (?1)")
            .map_err(backend)?
            .execute(params![doc])
            .map_err(backend)?;
    }
    let index_cols: Vec<Option<&str>> = Index::ALL
        .iter()
        .flat_map(|&index| match item.index_key(index) {
            Some((p, s)) => [Some(p), Some(s)],
            None => [None, None],
        })
        .collect();
    let values = params![
        item.pk(),
        item.sk(),
        doc,
        index_cols[0],
        index_cols[1],
        index_cols[2],
        index_cols[3],
        index_cols[4],
        index_cols[5],
        item.expires_at()
    ];
    // An item rewritten with the same index keys and expiry (a device's
    // every report) changes its row only: a replace would delete and insert
    // its entry in every index too, a page written to the WAL per index.
    let updated = conn
        .prepare_cached(
            "UPDATE items SET doc = ?3
             WHERE pk = ?1 AND sk = ?2
               AND gsi1pk IS ?4 AND gsi1sk IS ?5 AND gsi2pk IS ?6 AND gsi2sk IS ?7
               AND gsi3pk IS ?8 AND gsi3sk IS ?9 AND expires_at IS ?10",
        )
        .map_err(backend)?
        .execute(values)
        .map_err(backend)?;
    if updated == 0 {
        conn.prepare_cached(
            "INSERT OR REPLACE INTO items (pk, sk, doc, gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )
        .map_err(backend)?
        .execute(values)
        .map_err(backend)?;
    }
    Ok(())
}

fn delete_raw(conn: &Connection, key: &Key) -> Result<(), StoreError> {
    ItemCache::note_written(key.clone());
    conn.prepare_cached("DELETE FROM items WHERE pk = ?1 AND sk = ?2")
        .map_err(backend)?
        .execute(params![key.pk, key.sk])
        .map_err(backend)?;
    Ok(())
}

fn check(condition: &Option<Condition>, current: Option<&Item>) -> bool {
    condition.as_ref().is_none_or(|c| c.evaluate(current))
}

fn apply_update(
    current: Option<Item>,
    key: &Key,
    actions: &[UpdateAction],
) -> Result<Item, StoreError> {
    let mut item = current.unwrap_or_else(|| Item::new(key.clone()));
    for action in actions {
        action.apply(&mut item)?;
    }
    Ok(item)
}

#[async_trait]
impl Store for SqliteStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        validate_key(key)?;
        let now = self.clock.unix_seconds();
        if let Some(known) = self.items.get(key) {
            return Ok(known.filter(|i| !i.is_expired(now)));
        }
        let key = key.clone();
        let items = self.items.clone();
        let generation = items.generation();
        self.read(move |conn| {
            let item = read_raw(conn, &key)?;
            items.keep(generation, key, item.clone());
            Ok(item.filter(|i| !i.is_expired(now)))
        })
        .await
    }

    async fn batch_get(&self, keys: &[Key]) -> Result<Vec<Item>, StoreError> {
        if keys.len() > MAX_BATCH_GET_KEYS {
            return Err(StoreError::Invalid(format!(
                "a batch get takes at most {MAX_BATCH_GET_KEYS} keys"
            )));
        }
        keys.iter().try_for_each(validate_key)?;
        let now = self.clock.unix_seconds();
        let mut found = Vec::with_capacity(keys.len());
        let mut unknown = Vec::new();
        for key in keys {
            match self.items.get(key) {
                Some(known) => found.extend(known.filter(|i| !i.is_expired(now))),
                None => unknown.push(key.clone()),
            }
        }
        if unknown.is_empty() {
            return Ok(found);
        }
        let items = self.items.clone();
        let generation = items.generation();
        let read = self
            .read(move |conn| {
                let mut read = Vec::with_capacity(unknown.len());
                for key in unknown {
                    let item = read_raw(conn, &key)?;
                    items.keep(generation, key, item.clone());
                    read.extend(item.filter(|i| !i.is_expired(now)));
                }
                Ok(read)
            })
            .await?;
        found.extend(read);
        Ok(found)
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), StoreError> {
        validate_item(&item)?;
        self.run(move |conn| {
            read_if(conn, &item.key(), &condition)?;
            write_raw(conn, &item)
        })
        .await
    }

    async fn update(
        &self,
        key: &Key,
        actions: Vec<UpdateAction>,
        condition: Option<Condition>,
    ) -> Result<Item, StoreError> {
        validate_key(key)?;
        validate_update(&actions)?;
        let key = key.clone();
        self.run(move |conn| {
            let current = read_if(conn, &key, &condition)?;
            let updated = apply_update(current, &key, &actions)?;
            write_raw(conn, &updated)?;
            Ok(updated)
        })
        .await
    }

    async fn delete(
        &self,
        key: &Key,
        condition: Option<Condition>,
    ) -> Result<Option<Item>, StoreError> {
        validate_key(key)?;
        let key = key.clone();
        self.run(move |conn| {
            let current = read_if(conn, &key, &condition)?;
            delete_raw(conn, &key)?;
            Ok(current)
        })
        .await
    }

    async fn query(&self, query: Query) -> Result<Page, StoreError> {
        query.validate()?;
        let now = self.clock.unix_seconds();
        // Pages of the table itself are kept (an index's would need the
        // index keys an item had before each write to be forgotten).
        if query.index.is_some() {
            return self.read(move |conn| run_query(conn, &query, now)).await;
        }
        if let Some(page) = self.items.page(&query, now) {
            return Ok(page);
        }
        let items = self.items.clone();
        let generation = items.generation();
        self.read(move |conn| {
            let page = run_query(conn, &query, now)?;
            items.keep_page(generation, query, page.clone());
            Ok(page)
        })
        .await
    }

    async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), StoreError> {
        self.transact_with(writes, Durability::Synced).await
    }

    async fn transact_with(
        &self,
        writes: Vec<TxWrite>,
        durability: Durability,
    ) -> Result<(), StoreError> {
        // Appends are checked with stand-in positions here; their real ones
        // come from the heads read inside the transaction (one writer, so
        // they are given in commit order and the head conditions hold).
        let base = uuid::Uuid::new_v4().as_u128() as u32;
        let has_appends = !appended_logs(&writes).is_empty();
        if has_appends {
            validate_transaction(&writes)?;
            validate_transaction(
                &resolve_appends(writes.clone(), self.clock.now(), base, |_| 1, |_| None).writes,
            )?;
        } else {
            validate_transaction(&writes)?;
        }
        let now = self.clock.now();
        self.run_with(durability, move |conn| {
            let tx = conn;
            let (writes, heads) = if has_appends {
                let mut shards = std::collections::HashMap::new();
                for log in appended_logs(&writes) {
                    let first = read_raw(tx, &log_head_key(log))?;
                    shards.insert(log.to_owned(), shards_of(first.as_ref()));
                }
                let shards_of_log = |log: &str| shards.get(log).copied().unwrap_or(1);
                let mut known = std::collections::HashMap::new();
                for partition in appended_shards(&writes, shards_of_log) {
                    let last = head_last(read_raw(tx, &log_head_key(&partition))?.as_ref());
                    known.insert(partition, last);
                }
                let resolved = resolve_appends(writes, now, base, shards_of_log, |log| {
                    known.get(log).cloned().flatten()
                });
                let heads = resolved.heads.len();
                (resolved.writes, heads)
            } else {
                (writes, 0)
            };
            let mut reasons = Vec::with_capacity(writes.len());
            let mut results = Vec::with_capacity(writes.len());
            for write in &writes {
                let current = read_raw(tx, &write.key())?;
                let condition = match write {
                    TxWrite::Put { condition, .. }
                    | TxWrite::Update { condition, .. }
                    | TxWrite::Delete { condition, .. } => condition.clone(),
                    TxWrite::Check { condition, .. } => Some(condition.clone()),
                    TxWrite::Append { .. } | TxWrite::AppendPage { .. } => None,
                };
                if check(&condition, current.as_ref()) {
                    reasons.push(CancelReason::None);
                } else {
                    reasons.push(CancelReason::ConditionFailed);
                }
                results.push(current);
            }
            if reasons.contains(&CancelReason::ConditionFailed) {
                // Dropping the transaction rolls it back: nothing was written.
                // The caller sees the reasons of its own writes only.
                reasons.truncate(reasons.len() - heads);
                return Err(StoreError::TransactionCanceled { reasons });
            }
            for (write, current) in writes.iter().zip(results) {
                match write {
                    TxWrite::Put { item, .. } => write_raw(tx, item)?,
                    TxWrite::Update { key, actions, .. } => {
                        write_raw(tx, &apply_update(current, key, actions)?)?
                    }
                    TxWrite::Delete { key, .. } => delete_raw(tx, key)?,
                    TxWrite::Check { .. } | TxWrite::Append { .. } | TxWrite::AppendPage { .. } => {
                    }
                }
            }
            Ok(())
        })
        .await
    }
}

/// The feed: every new item that carried [`crate::attr::FEED`] when it
/// was written, as it was written, in commit order (the local stand-in for
/// DynamoDB's table stream, which the hosted platform reads instead).
#[async_trait]
impl crate::repo::feed::FeedReader for SqliteStore {
    async fn feed_after(&self, after: u64, limit: u32) -> Result<Vec<(u64, Item)>, StoreError> {
        self.read(move |conn| {
            let mut statement = conn
                .prepare_cached("SELECT seq, doc FROM feed WHERE seq > ?1 ORDER BY seq LIMIT ?2")
                .map_err(backend)?;
            let rows = statement
                .query_map(params![after as i64, limit], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
                })
                .map_err(backend)?;
            let mut records = Vec::new();
            for row in rows {
                let (seq, doc) = row.map_err(backend)?;
                records.push((seq as u64, decode(&doc)?));
            }
            Ok(records)
        })
        .await
    }

    /// Forgets the feed up to and including `through` (its reader is past it).
    async fn trim_feed(&self, through: u64) -> Result<(), StoreError> {
        // Written, as the sequencer's commits: a power cut that loses this
        // loses them first, and the feed is read again.
        self.run_with(Durability::Written, move |conn| {
            conn.prepare_cached("DELETE FROM feed WHERE seq <= ?1")
                .map_err(backend)?
                .execute(params![through as i64])
                .map_err(backend)?;
            Ok(())
        })
        .await
    }
}

/// Runs an ordered query, reading one row past the limit so that `next` is set
/// exactly when more items follow.
fn run_query(conn: &Connection, query: &Query, now: i64) -> Result<Page, StoreError> {
    let limit = query.effective_limit() as usize;
    let (pcol, scol) = match query.index {
        None => ("pk", "sk"),
        Some(index) => (index.pk_attr(), index.sk_attr()),
    };
    let mut sql = format!(
        "SELECT doc FROM items WHERE {pcol} = ?1 AND {scol} IS NOT NULL \
         AND (expires_at IS NULL OR expires_at > ?2)"
    );
    let mut args: Vec<Value> = vec![Value::String(query.partition.clone()), Value::from(now)];
    let arg = |v: &str, args: &mut Vec<Value>| {
        args.push(Value::String(v.to_owned()));
        args.len()
    };
    match &query.sort {
        None => {}
        Some(SortKey::Eq(v)) => sql += &format!(" AND {scol} = ?{}", arg(v, &mut args)),
        Some(SortKey::Lt(v)) => sql += &format!(" AND {scol} < ?{}", arg(v, &mut args)),
        Some(SortKey::Le(v)) => sql += &format!(" AND {scol} <= ?{}", arg(v, &mut args)),
        Some(SortKey::Gt(v)) => sql += &format!(" AND {scol} > ?{}", arg(v, &mut args)),
        Some(SortKey::Ge(v)) => sql += &format!(" AND {scol} >= ?{}", arg(v, &mut args)),
        Some(SortKey::Between(lo, hi)) => {
            let a = arg(lo, &mut args);
            let b = arg(hi, &mut args);
            sql += &format!(" AND {scol} >= ?{a} AND {scol} <= ?{b}");
        }
        Some(SortKey::BeginsWith(prefix)) => {
            // substr compares bytes for TEXT in SQLite's BINARY collation.
            let a = arg(prefix, &mut args);
            sql += &format!(" AND substr({scol}, 1, length(?{a})) = ?{a}");
        }
    }
    let (cmp, dir) = if query.forward {
        (">", "ASC")
    } else {
        ("<", "DESC")
    };
    if let Some(after) = &query.after {
        match query.index {
            None => {
                let a = arg(&after.sk, &mut args);
                sql += &format!(" AND sk {cmp} ?{a}");
            }
            Some(_) => {
                // Index order is (index sk, pk, sk): continue strictly after that tuple.
                let isk = after.index_sk.as_deref().unwrap_or_default();
                let a = arg(isk, &mut args);
                let b = arg(&after.pk, &mut args);
                let c = arg(&after.sk, &mut args);
                sql += &format!(" AND ({scol}, pk, sk) {cmp} (?{a}, ?{b}, ?{c})");
            }
        }
    }
    match query.index {
        None => sql += &format!(" ORDER BY sk {dir}"),
        Some(_) => sql += &format!(" ORDER BY {scol} {dir}, pk {dir}, sk {dir}"),
    }
    sql += &format!(" LIMIT {}", limit + 1);

    let params: Vec<rusqlite::types::Value> = args
        .into_iter()
        .map(|v| match v {
            Value::String(s) => rusqlite::types::Value::Text(s),
            Value::Number(n) => rusqlite::types::Value::Integer(n.as_i64().unwrap_or_default()),
            _ => rusqlite::types::Value::Null,
        })
        .collect();
    let mut stmt = conn.prepare_cached(&sql).map_err(backend)?;
    let docs = stmt
        .query_map(params_from_iter(params), |row| row.get::<_, String>(0))
        .map_err(backend)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(backend)?;
    let mut items = docs
        .iter()
        .map(|d| decode(d))
        .collect::<Result<Vec<_>, _>>()?;
    let next = if items.len() > limit {
        items.truncate(limit);
        items.last().map(|last| PageKey::of(last, query.index))
    } else {
        None
    };
    Ok(Page { items, next })
}

/// Decoded items point reads found (or found absent), and pages queries of
/// the table found, kept until a writer changes them (an item, or any item
/// of the page's partition), so a read of what did not change is a map
/// lookup instead of a read transaction and a JSON decode (the profile of
/// M1, PROFILING.md).
///
/// Coherence: every store on one database file in this process shares one
/// cache (another process never opens it: the data directory is locked),
/// and each writer forgets what its group wrote before it answers anyone.
/// A read that missed notes the generation first and keeps what it read
/// only if no writer forgot anything since and no commit is in flight: the
/// written keys are forgotten before COMMIT, and from then until the writer
/// is done nothing is kept, so a reader whose snapshot began before the
/// commit cannot put the old value back where a reader that already saw the
/// new one would find it. Expiry is checked at every hit.
#[derive(Default)]
pub(crate) struct ItemCache {
    state: Mutex<CacheState>,
}

#[derive(Default)]
struct CacheState {
    /// Shared, so a hit copies the item outside the lock.
    items: std::collections::HashMap<Key, Arc<Option<Item>>>,
    /// Per partition, per query, the page it found.
    pages: std::collections::HashMap<String, std::collections::HashMap<Query, Arc<Page>>>,
    pages_kept: usize,
    generation: u64,
    /// Between a writer's `commit_begins` and its `forget_written`.
    committing: bool,
}

/// Items kept at most (about 2 KB each): past it the items start over.
const ITEMS_KEPT: usize = 2_048;
/// Pages kept at most (up to a query's limit of items each): past it the
/// pages start over.
const PAGES_KEPT: usize = 256;

thread_local! {
    /// The keys the writer thread's current group wrote.
    static WRITTEN: std::cell::RefCell<Vec<Key>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl ItemCache {
    /// The cache of the database file at `path`, shared in this process.
    fn of_file(path: &Path) -> Arc<Self> {
        static BY_FILE: std::sync::OnceLock<
            Mutex<std::collections::HashMap<std::path::PathBuf, std::sync::Weak<ItemCache>>>,
        > = std::sync::OnceLock::new();
        let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        let mut files = BY_FILE
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        files.retain(|_, cache| cache.strong_count() > 0);
        if let Some(cache) = files.get(&path).and_then(std::sync::Weak::upgrade) {
            return cache;
        }
        let cache = Arc::new(Self::default());
        files.insert(path, Arc::downgrade(&cache));
        cache
    }

    fn state(&self) -> std::sync::MutexGuard<'_, CacheState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What is known of `key`: `Some(None)` when it is known absent.
    fn get(&self, key: &Key) -> Option<Option<Item>> {
        let known = self.state().items.get(key).cloned()?;
        Some(Option::clone(&known))
    }

    fn generation(&self) -> u64 {
        self.state().generation
    }

    /// Keeps what a read found, unless a writer forgot anything since
    /// `generation`.
    fn keep(&self, generation: u64, key: Key, item: Option<Item>) {
        let mut state = self.state();
        if !state.may_keep(generation) {
            return;
        }
        if state.items.len() >= ITEMS_KEPT {
            state.items.clear();
        }
        state.items.insert(key, Arc::new(item));
    }

    /// The page `query` found, unless an item of it expired since (a page
    /// is kept whole or not at all).
    fn page(&self, query: &Query, now: i64) -> Option<Page> {
        let page = self
            .state()
            .pages
            .get(&query.partition)?
            .get(query)
            .cloned()?;
        if page.items.iter().any(|i| i.is_expired(now)) {
            return None;
        }
        Some(Page::clone(&page))
    }

    /// Keeps the page a query found, unless a writer forgot anything since
    /// `generation`.
    fn keep_page(&self, generation: u64, query: Query, page: Page) {
        let mut state = self.state();
        if !state.may_keep(generation) {
            return;
        }
        if state.pages_kept >= PAGES_KEPT {
            state.pages.clear();
            state.pages_kept = 0;
        }
        let kept = state.pages.entry(query.partition.clone()).or_default();
        if kept.insert(query, Arc::new(page)).is_none() {
            state.pages_kept += 1;
        }
    }

    /// Notes a key the writer thread writes (`write_raw`, `delete_raw`).
    fn note_written(key: Key) {
        WRITTEN.with(|written| written.borrow_mut().push(key));
    }

    /// Forgets what the writer thread's group wrote, just before its COMMIT,
    /// and keeps nothing more until `forget_written`.
    fn commit_begins(&self) {
        let mut state = self.state();
        state.generation += 1;
        state.committing = true;
        WRITTEN.with(|written| state.forget(&written.borrow()));
    }

    /// Forgets what the writer thread's group wrote (committed or not) and
    /// ends the commit.
    fn forget_written(&self) {
        let written = WRITTEN.with(|written| std::mem::take(&mut *written.borrow_mut()));
        let mut state = self.state();
        state.generation += 1;
        state.committing = false;
        state.forget(&written);
    }
}

impl CacheState {
    fn may_keep(&self, generation: u64) -> bool {
        self.generation == generation && !self.committing
    }

    fn forget(&mut self, written: &[Key]) {
        for key in written {
            if let Some(pages) = self.pages.remove(&key.pk) {
                self.pages_kept -= pages.len();
            }
            self.items.remove(key);
        }
    }
}

#[cfg(test)]
mod item_cache_tests {
    use super::*;

    fn item(n: i64) -> Option<Item> {
        Some(Item::new(Key::new("P", "s")).with("n", n))
    }

    fn kept_n(cache: &ItemCache) -> Option<i64> {
        cache
            .get(&Key::new("P", "s"))
            .and_then(|known| known)
            .and_then(|i| i.get_i64("n"))
    }

    /// The interleaving CI once hit: a reader whose snapshot began before a
    /// commit read the old value and kept it after the commit, where a
    /// reader that had already read the new value found it.
    #[test]
    fn a_read_from_before_a_commit_is_not_kept_once_the_commit_begins() {
        let cache = ItemCache::default();
        let key = Key::new("P", "s");
        cache.keep(cache.generation(), key.clone(), item(95));
        let stale_reader = cache.generation();
        ItemCache::note_written(key.clone());
        cache.commit_begins();
        assert_eq!(
            kept_n(&cache),
            None,
            "the written key is forgotten before COMMIT"
        );
        // Between COMMIT and the writer's forget: neither the old snapshot's
        // value nor the new one read by a reader that noted the generation
        // during the commit is kept.
        cache.keep(stale_reader, key.clone(), item(95));
        cache.keep(cache.generation(), key.clone(), item(96));
        assert_eq!(kept_n(&cache), None);
        cache.forget_written();
        cache.keep(stale_reader, key.clone(), item(95));
        assert_eq!(kept_n(&cache), None);
        cache.keep(cache.generation(), key, item(96));
        assert_eq!(kept_n(&cache), Some(96));
    }
}

#[cfg(test)]
mod feed_tests {
    use super::*;

    fn fed(n: i64) -> Item {
        Item::new(Key::new("P", format!("s{n}")))
            .with(crate::attr::FEED, "telemetry")
            .with("n", n)
    }

    /// New marked items reach the feed in commit order, through a put or a
    /// transaction, once: rewriting one, or writing an unmarked item, adds
    /// nothing; a write that fails adds nothing; trimming forgets.
    #[tokio::test]
    async fn new_marked_items_are_fed_once_in_commit_order() {
        use crate::repo::feed::FeedReader;
        let dir = tempfile::tempdir().unwrap();
        let clock: Arc<dyn Clock> = Arc::new(alyt_domain::SystemClock);
        let store = SqliteStore::open(&dir.path().join("feed.db"), clock).unwrap();
        store.put(fed(1), None).await.unwrap();
        store
            .transact(vec![
                TxWrite::Put {
                    item: fed(2),
                    condition: None,
                },
                TxWrite::Put {
                    item: Item::new(Key::new("P", "plain")).with("n", 0),
                    condition: None,
                },
                TxWrite::Put {
                    item: fed(3),
                    condition: None,
                },
            ])
            .await
            .unwrap();
        store.put(fed(1).with("again", true), None).await.unwrap();
        let refused = store
            .transact(vec![
                TxWrite::Put {
                    item: fed(4),
                    condition: None,
                },
                TxWrite::Put {
                    item: fed(2),
                    condition: Some(Condition::item_absent()),
                },
            ])
            .await;
        assert!(refused.is_err());
        let read = store.feed_after(0, 10).await.unwrap();
        let ns: Vec<i64> = read.iter().map(|(_, i)| i.get_i64("n").unwrap()).collect();
        assert_eq!(ns, [1, 2, 3]);
        assert!(read.windows(2).all(|w| w[0].0 < w[1].0));
        let rest = store.feed_after(read[0].0, 10).await.unwrap();
        assert_eq!(rest.len(), 2);
        store.trim_feed(read[1].0).await.unwrap();
        let left = store.feed_after(0, 10).await.unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].1.get_i64("n"), Some(3));
    }
}
