//! Developer keys, rotation, revocation and app tokens over HTTP.
