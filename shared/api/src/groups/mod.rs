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
            Group::Auth => household_auth::routes(),
            Group::Developers => developers::routes(),
            Group::Homes => homes::routes(),
            Group::Integrations => integrations::routes().merge(catalogue::routes()),
            Group::People => people::routes(),
        }
    }
}
