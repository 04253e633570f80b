//! The access decisions live with the use cases ([`alyt_app::access`]);
//! handlers that still ask them directly find them here.

pub(crate) use alyt_app::access::*;
