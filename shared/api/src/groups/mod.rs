//! The operation groups, one folder or file each: this module names every
//! group's routes. The contract ([`crate::openapi`]) and the assembly
//! ([`crate::app()`]) both read them from here.

use crate::routing::Operations;

pub mod catalogue;
pub mod developers;
pub mod devices;
pub mod homes;
pub mod household_auth;
pub mod integrations;
pub mod music;
pub mod people;
pub mod security;

/// The operation groups; each is one Lambda when hosted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Auth,
    Developers,
    Homes,
    /// Connecting connectors to homes, discovery, an integration's
    /// endpoints and the catalogue households choose from.
    Integrations,
    /// A household's people: members, grants, ends of membership.
    People,
    /// Home security: status, modes, settings and selections,
    /// incidents, the hand-over to a security-system connector and
    /// delegations, all under `/v1/home-security/`. A group of its own so
    /// the homes function need not link it (bootstrap size).
    Security,
}

impl Group {
    pub const ALL: [Group; 6] = [
        Group::Auth,
        Group::Developers,
        Group::Homes,
        Group::Integrations,
        Group::People,
        Group::Security,
    ];

    pub fn routes(self) -> Operations {
        match self {
            Group::Auth => hosted::Auth::routes(),
            Group::Developers => hosted::Developers::routes(),
            Group::Homes => hosted::Homes::routes(),
            Group::Integrations => hosted::Integrations::routes(),
            Group::People => hosted::People::routes(),
            Group::Security => hosted::Security::routes(),
        }
    }
}

/// One group chosen at compile time: a function that hosts it names its
/// routes without [`Group::routes`]'s match, so the binary links only that
/// group's handlers (the others are dead code the linker drops, which
/// keeps every bootstrap small).
pub trait OneGroup {
    const GROUP: Group;
    fn routes() -> Operations;
}

/// The [`OneGroup`] of each group.
pub mod hosted {
    use super::*;

    macro_rules! one_group {
        ($name:ident, $($routes:expr),+) => {
            pub struct $name;
            impl OneGroup for $name {
                const GROUP: Group = Group::$name;
                fn routes() -> Operations {
                    Operations::default()$(.merge($routes))+
                }
            }
        };
    }

    one_group!(Auth, household_auth::routes());
    one_group!(Developers, developers::routes(), crate::documents::routes());
    one_group!(Homes, homes::routes());
    one_group!(Integrations, integrations::routes(), catalogue::routes());
    one_group!(People, people::routes());
    one_group!(Security, security::routes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hosted stack routes `ANY /v1/home-security/{proxy+}` to the
    /// security function and everything else under `/v1/` elsewhere: the
    /// security group must serve exactly the paths under that prefix.
    #[test]
    fn home_security_paths_are_the_security_group_and_only_it() {
        const PREFIX: &str = "/v1/home-security/";
        let security = Group::Security.routes().endpoints();
        assert!(!security.is_empty());
        for (method, path) in &security {
            assert!(path.starts_with(PREFIX), "{method} {path}");
        }
        for group in Group::ALL.into_iter().filter(|g| *g != Group::Security) {
            for (method, path) in group.routes().endpoints() {
                assert!(
                    !path.starts_with(PREFIX),
                    "{group:?} serves {method} {path}"
                );
            }
        }
    }
}
