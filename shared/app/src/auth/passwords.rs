//! Password hashing (argon2id). High-entropy secrets (keys, refresh and
//! one-time tokens) are stored as their SHA-256 ([`alyt_domain::secret`]);
//! passwords people choose are hashed with argon2id. Secrets are never
//! logged.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

use alyt_domain::secret::random_bytes;

/// argon2id with OWASP's minimum parameters: 19 MiB, 2 passes, 1 lane.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes a password (PHC string). CPU-heavy: call from a blocking task.
pub fn hash_password(password: &str) -> String {
    let salt = SaltString::encode_b64(&random_bytes::<16>()).expect("16-byte salt encodes");
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 hashing cannot fail with valid parameters")
        .to_string()
}

/// Verifies a password against a PHC string in constant time. CPU-heavy.
pub fn verify_password(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|hash| argon2().verify_password(password.as_bytes(), &hash).is_ok())
        .unwrap_or(false)
}

/// A hash to verify against when the account does not exist, so an unknown
/// email costs the same time as a wrong password.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| hash_password("decoy password that matches nothing"));
    &DECOY
}

type HashJob = Box<dyn FnOnce() + Send>;

/// Password hashes run on threads of their own, one per core: each hash
/// takes 19 MiB and a core for tens of milliseconds, so more at once only
/// adds memory and no speed. On the blocking pool a login storm spread the
/// hashes over many threads, and the allocator kept a 19 MiB block for each
/// (measured: +150 MB after ten logins, never given back); here at most one
/// block per core is kept. Callers wait their turn in the queue without
/// holding a thread.
static HASHING: std::sync::LazyLock<std::sync::mpsc::Sender<HashJob>> =
    std::sync::LazyLock::new(|| {
        give_back_large_blocks();
        let (jobs, queue) = std::sync::mpsc::channel::<HashJob>();
        let queue = std::sync::Arc::new(std::sync::Mutex::new(queue));
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        for n in 0..threads {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("alyt-hashing-{n}"))
                .spawn(move || {
                    loop {
                        let job = match queue.lock() {
                            Ok(queue) => queue.recv(),
                            Err(poisoned) => poisoned.into_inner().recv(),
                        };
                        match job {
                            // A job that panics loses its answer, not the thread.
                            Ok(job) => {
                                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                            }
                            Err(_) => return,
                        }
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "a password hashing thread could not start");
            }
        }
        jobs
    });

/// Makes glibc serve every block of 128 KiB or more with its own mapping,
/// given back to the system when freed. By default glibc raises that bound
/// to the largest block freed so far, so after the first hash each 19 MiB
/// block came from the heap and was never given back: measured, every
/// password check added 19 MiB of resident memory for good (five checks on
/// one thread: 5 MB to 102 MB; with the fixed bound it stays at 5 MB). Other
/// C libraries (musl) map large blocks anyway.
fn give_back_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets an allocator parameter; it takes plain
        // integers and is safe to call while other threads allocate.
        let set = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024) };
        if set != 1 {
            tracing::warn!("could not fix the allocator's mapping threshold");
        }
    }
}

/// Runs one password hash or check on the hashing threads; `None` if it
/// could not run.
async fn hashing<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    HASHING
        .send(Box::new(move || {
            let _ = answer.send(work());
        }))
        .ok()?;
    answered.await.ok()
}

pub async fn hash_password_blocking(password: String) -> String {
    hashing(move || hash_password(&password))
        .await
        .expect("hashing task")
}

pub async fn verify_password_blocking(password: String, phc: String) -> bool {
    hashing(move || verify_password(&password, &phc))
        .await
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_against_their_hash() {
        let hash = hash_password("plum tractor season");
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_password("plum tractor season", &hash));
        assert!(!verify_password("plum tractor seasoN", &hash));
        assert!(!verify_password("plum tractor season", "not a hash"));
        assert_ne!(hash, hash_password("plum tractor season"), "salted");
    }

    /// A storm of hashes runs at most one per core at a time (the rest wait
    /// in the queue), on the hashing threads only, and every one finishes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn hashing_runs_at_most_one_per_core_at_a_time() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let mut storm = Vec::new();
        for _ in 0..(cores * 4) {
            let (running, most) = (running.clone(), most.clone());
            storm.push(tokio::spawn(hashing(move || {
                let name = std::thread::current().name().unwrap_or_default().to_owned();
                assert!(name.starts_with("alyt-hashing-"), "{name}");
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(20));
                running.fetch_sub(1, Ordering::SeqCst);
            })));
        }
        for hash in storm {
            assert!(hash.await.unwrap().is_some());
        }
        let most = most.load(Ordering::SeqCst);
        assert!(most <= cores, "{most} at once on {cores} cores");
        assert!(most >= 1);
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod memory {
    fn resident_kib() -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
            .unwrap()
    }

    /// Password checks give their 19 MiB back: ten in a row leave the
    /// process about where one left it (without the fix, +19 MiB each).
    /// Other tests of this binary hash passwords at the same time, and one
    /// hash in flight holds 19 MiB, so the measurement runs in a process of
    /// its own (this test binary again, with only this test).
    #[tokio::test]
    async fn password_checks_do_not_keep_their_memory() {
        const ALONE: &str = "ALYT_MEASURE_MEMORY_ALONE";
        if std::env::var_os(ALONE).is_none() {
            let module = module_path!().split_once("::").map_or("", |(_, m)| m);
            let name = format!("{module}::password_checks_do_not_keep_their_memory");
            let output = std::process::Command::new(std::env::current_exe().unwrap())
                .args([name.as_str(), "--exact", "--test-threads=1"])
                .env(ALONE, "1")
                .output()
                .unwrap();
            let report = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "{report}");
            assert!(
                report.contains("1 passed"),
                "the measurement did not run: {report}"
            );
            return;
        }
        let hash = super::hash_password("plum tractor season");
        let check = || super::verify_password_blocking("plum tractor season".into(), hash.clone());
        assert!(check().await);
        let after_one = resident_kib();
        for _ in 0..10 {
            assert!(check().await);
        }
        let grown = resident_kib().saturating_sub(after_one);
        assert!(grown < 19 * 1024, "ten checks kept {grown} KiB");
    }
}
