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
    /// endpoints (spec G) and the catalogue households choose from (spec D).
    Integrations,
    /// A household's people: members, grants, ends of membership (spec B).
    People,
}

impl Group {
    pub const ALL: [Group; 5] = [
        Group::Auth,
        Group::Developers,
        Group::Homes,
        Group::Integrations,
        Group::People,
    ];

    pub fn routes(self) -> Operations {
        match self {
            Group::Auth => hosted::Auth::routes(),
            Group::Developers => hosted::Developers::routes(),
            Group::Homes => hosted::Homes::routes(),
            Group::Integrations => hosted::Integrations::routes(),
            Group::People => hosted::People::routes(),
        }
    }
}

/// One group chosen at compile time: a function that hosts it names its
/// routes without [`Group::routes`]'s match, so the binary links only that
/// group's handlers (the others are dead code the linker drops; issue 21,
/// bootstrap size).
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
    one_group!(Developers, developers::routes());
    one_group!(Homes, homes::routes());
    one_group!(Integrations, integrations::routes(), catalogue::routes());
    one_group!(People, people::routes());
}
