//! Quotas and usage.
