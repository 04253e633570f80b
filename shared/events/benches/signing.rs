//! Signing a webhook body against the floor it cannot beat: one SHA-256 of
//! the same body. `bench/run` reads the two estimates and reports their
//! ratio (M5: signing >= 0.8x raw SHA-256 throughput on a 1 KiB body).
//! `sign` is what a delivery costs per row: the worker prepares one signer
//! per endpoint and signs each of its rows with it; `sign-fresh` also makes
//! the signer (the key's two padded blocks), for a single signature.

use std::hint::black_box;

use alyt_events::signature::{Signer, sign};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sha2::{Digest, Sha256};

fn signing(c: &mut Criterion) {
    let body = vec![b'x'; 1024];
    let secret = b"whsec_0123456789abcdef0123456789abcdef";
    let mut group = c.benchmark_group("webhook-1KiB");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("sha256", |b| b.iter(|| Sha256::digest(black_box(&body))));
    let signer = Signer::new(secret);
    group.bench_function("sign", |b| {
        b.iter(|| black_box(&signer).sign(black_box(1_764_115_200), black_box(&body)))
    });
    group.bench_function("sign-fresh", |b| {
        b.iter(|| {
            sign(
                black_box(secret),
                black_box(1_764_115_200),
                black_box(&body),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, signing);
criterion_main!(benches);
