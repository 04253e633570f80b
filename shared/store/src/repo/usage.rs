//! Usage counters and quota overrides.
