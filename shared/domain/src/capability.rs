//! placeholder, filled by the capability catalogue work
