//! The operations a group serves, named once by their handlers, and read two
//! ways: the runtime's router, which needs only each handler's path and
//! methods, and the contract, which needs every operation's parameters,
//! bodies and schemas.
//!
//! Why not utoipa-axum's `OpenApiRouter` at run time: building the contract
//! (every schema of every operation, merged) took 9-14 ms of a 20 ms start
//! (docs/PROFILING.md), on every start of the local platform
//! and every cold start of a Lambda. The contract is now built only when it
//! is asked for ([`crate::openapi::document`], and once per process for
//! `GET /v1/openapi.json`), from the same list, by utoipa-axum itself, so the
//! document cannot drift from what is routed.

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::Router;
use axum::http::Method;
use axum::routing::MethodRouter;
use utoipa::openapi::HttpMethod;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

use crate::state::AppState;

/// One operation, as the accessors of its handler's `#[utoipa::path]`.
#[derive(Clone, Copy)]
pub struct Operation {
    /// The route template (`/v1/rooms/{roomId}`).
    pub path: fn() -> String,
    pub methods: fn() -> Vec<HttpMethod>,
    /// The handler, routed for the methods given.
    pub handler: fn(&[HttpMethod]) -> MethodRouter<AppState>,
    /// Whether the contract names a security requirement for it (built on
    /// first use: see [`SecuredOperations`]).
    pub secured: fn() -> bool,
    /// The contract's view of it (utoipa-axum's `routes!`).
    pub contract: fn() -> UtoipaMethodRouter<AppState>,
}

/// The operations of one or more groups.
#[derive(Clone, Default)]
pub struct Operations(Vec<Operation>);

impl Operations {
    pub fn new() -> Self {
        Self::default()
    }

    /// For [`operations!`].
    pub fn from_list(list: Vec<Operation>) -> Self {
        Self(list)
    }

    /// These operations and `more`.
    pub fn merge(mut self, more: Operations) -> Self {
        self.0.extend(more.0);
        self
    }

    /// Every operation's route template and method, in order.
    pub fn endpoints(&self) -> Vec<(Method, String)> {
        self.0
            .iter()
            .flat_map(|op| {
                let path = (op.path)();
                (op.methods)()
                    .into_iter()
                    .map(move |m| (method_of(&m), path.clone()))
            })
            .collect()
    }

    /// The runtime's router: reads each handler's path and methods, nothing
    /// of the contract.
    pub fn router(&self) -> Router<AppState> {
        self.0.iter().fold(Router::new(), |router, op| {
            let methods = (op.methods)();
            router.route(&(op.path)(), (op.handler)(&methods))
        })
    }

    /// Which of these operations authenticate their caller, each decided on
    /// its first request.
    pub fn secured(&self) -> SecuredOperations {
        let mut lazy = HashMap::new();
        for op in &self.0 {
            let path = (op.path)();
            for method in (op.methods)() {
                lazy.insert(
                    (method_of(&method), path.clone()),
                    (op.secured, OnceLock::new()),
                );
            }
        }
        SecuredOperations(lazy)
    }

    /// The contract of these operations (utoipa-axum's router, whose
    /// document is the OpenAPI paths and schemas).
    pub fn contract(&self) -> OpenApiRouter<AppState> {
        self.0.iter().fold(OpenApiRouter::new(), |router, op| {
            router.routes((op.contract)())
        })
    }
}

/// The operations that authenticate their caller: those the contract names
/// a security requirement for, by method and route template. The rate
/// limiter defers their charge to the [`Caller`](crate::auth::Caller)
/// extractor; every other operation is charged to the address before its
/// handler. Each is decided on its first request (building one operation's
/// contract takes microseconds; all of them at start, milliseconds). The
/// default knows none (tests with hand-made routers).
#[derive(Default)]
pub struct SecuredOperations(HashMap<(Method, String), LazyFlag>);

/// Whether one operation is secured: how to find out, and the answer once
/// known.
pub type LazyFlag = (fn() -> bool, OnceLock<bool>);

impl std::fmt::Debug for SecuredOperations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecuredOperations({} operations)", self.0.len())
    }
}

impl SecuredOperations {
    pub fn authenticates(&self, method: &Method, path: &str) -> bool {
        self.0
            .get(&(method.clone(), path.to_owned()))
            .is_some_and(|(secured, known)| *known.get_or_init(*secured))
    }
}

/// Whether `operation` names a security requirement.
pub fn is_secured(operation: utoipa::openapi::path::Operation) -> bool {
    operation.security.is_some_and(|s| !s.is_empty())
}

fn method_of(method: &HttpMethod) -> Method {
    match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Trace => Method::TRACE,
    }
}

/// The [`Operations`] of handlers in scope, each with a `#[utoipa::path]`
/// attribute: `operations!(list_rooms, create_room)`.
macro_rules! operations {
    ($($handler:ident),+ $(,)?) => {
        $crate::routing::Operations::from_list(vec![$(
            ::paste::paste! {
                $crate::routing::Operation {
                    path: <[<__path_ $handler>] as ::utoipa::Path>::path,
                    methods: <[<__path_ $handler>] as ::utoipa::Path>::methods,
                    handler: |methods| {
                        use ::utoipa_axum::PathItemExt;
                        methods.iter().fold(::axum::routing::MethodRouter::new(), |router, method| {
                            router.on(method.to_method_filter(), $handler)
                        })
                    },
                    secured: || $crate::routing::is_secured(
                        <[<__path_ $handler>] as ::utoipa::Path>::operation(),
                    ),
                    contract: || ::utoipa_axum::routes!($handler),
                }
            }
        ),+])
    };
}
pub(crate) use operations;
