//! Where discovery puts a thing.
//!
//! * A thing that already has a room keeps it: discovery never moves a
//!   thing a person placed, and rediscovery never undoes a move.
//! * A thing whose provider names a room goes to the existing room of that
//!   name (compared by letters and digits, ignoring case, after the
//!   connector's synonyms are folded), or to a new room of that name.
//! * A thing with no named room goes to the existing room whose folded name
//!   appears inside the thing's folded name, the longest such name winning;
//!   else it stays unassigned.
//! * Rooms are never renamed, and a thing's name is never changed by
//!   rediscovery (the caller keeps the stored name).

use std::collections::BTreeMap;

use crate::room::fold_name;

/// Where a discovered thing goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement<Id> {
    /// Leave its room as it is (it has one, or none fits).
    Keep,
    /// Into this existing room.
    Existing(Id),
    /// Into a new room with this name.
    Create(String),
}

/// A connector's room synonyms, folded: `{ "lounge": "livingroom" }`.
#[derive(Debug, Clone, Default)]
pub struct Synonyms(BTreeMap<String, String>);

impl Synonyms {
    /// From the connector's `{ synonym: canonical name }` (names in any case
    /// and spacing). Empty or self-mapping entries are ignored.
    pub fn new<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Synonyms(
            pairs
                .into_iter()
                .map(|(from, to)| (fold_name(from), fold_name(to)))
                .filter(|(from, to)| !from.is_empty() && from != to)
                .collect(),
        )
    }

    /// `name` folded, with every synonym replaced by its canonical name
    /// (longest synonym first, so "living room" wins over "room").
    pub fn fold(&self, name: &str) -> String {
        let mut folded = fold_name(name);
        let mut pairs: Vec<(&String, &String)> = self.0.iter().collect();
        pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        for (from, to) in pairs {
            if folded.contains(from.as_str()) {
                folded = folded.replace(from.as_str(), to);
            }
        }
        folded
    }
}

/// Where a thing goes. `has_room`: it already has one. `named_room`: the
/// room the provider names. `rooms`: the home's rooms (id, name), plus the
/// rooms created earlier in the same discovery.
pub fn place<Id: Clone>(
    has_room: bool,
    named_room: Option<&str>,
    thing_name: &str,
    rooms: &[(Id, String)],
    synonyms: &Synonyms,
) -> Placement<Id> {
    if has_room {
        return Placement::Keep;
    }
    if let Some(named) = named_room.map(str::trim).filter(|n| !n.is_empty()) {
        let wanted = synonyms.fold(named);
        if wanted.is_empty() {
            return Placement::Keep;
        }
        return match rooms.iter().find(|(_, name)| synonyms.fold(name) == wanted) {
            Some((id, _)) => Placement::Existing(id.clone()),
            None => Placement::Create(named.to_owned()),
        };
    }
    let thing = synonyms.fold(thing_name);
    rooms
        .iter()
        .map(|(id, name)| (id, synonyms.fold(name)))
        .filter(|(_, folded)| !folded.is_empty() && thing.contains(folded.as_str()))
        .max_by_key(|(_, folded)| folded.len())
        .map_or(Placement::Keep, |(id, _)| Placement::Existing(id.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rooms() -> Vec<(u32, String)> {
        vec![
            (1, "Living room".into()),
            (2, "Room".into()),
            (3, "Kitchen".into()),
        ]
    }

    #[test]
    fn a_named_room_is_found_by_folded_name_or_created() {
        let none = Synonyms::default();
        assert_eq!(
            place(false, Some("living-ROOM"), "Lamp", &rooms(), &none),
            Placement::Existing(1)
        );
        assert_eq!(
            place(false, Some(" Study "), "Lamp", &rooms(), &none),
            Placement::Create("Study".into())
        );
    }

    #[test]
    fn without_a_named_room_the_longest_room_name_inside_the_thing_name_wins() {
        let none = Synonyms::default();
        assert_eq!(
            place(false, None, "Living Room Lamp", &rooms(), &none),
            Placement::Existing(1)
        );
        assert_eq!(
            place(false, None, "Kitchen spots", &rooms(), &none),
            Placement::Existing(3)
        );
        assert_eq!(
            place(false, None, "Porch light", &rooms(), &none),
            Placement::Keep
        );
    }

    #[test]
    fn synonyms_are_folded_first() {
        let synonyms = Synonyms::new([("Lounge", "Living room")]);
        assert_eq!(
            place(false, None, "Lounge lamp", &rooms(), &synonyms),
            Placement::Existing(1)
        );
        assert_eq!(
            place(false, Some("lounge"), "Lamp", &rooms(), &synonyms),
            Placement::Existing(1)
        );
    }

    proptest! {
        /// A placed thing is never moved, whatever discovery says.
        #[test]
        fn a_placed_thing_is_never_moved(named in proptest::option::of(".{0,20}"), name in ".{0,30}") {
            let placement = place(true, named.as_deref(), &name, &rooms(), &Synonyms::default());
            prop_assert_eq!(placement, Placement::Keep);
        }

        /// An existing room chosen is one whose name fits; a created room is
        /// only ever the provider's named room.
        #[test]
        fn choices_are_justified(named in proptest::option::of("[A-Za-z ]{0,12}"), name in "[A-Za-z ]{0,30}") {
            match place(false, named.as_deref(), &name, &rooms(), &Synonyms::default()) {
                Placement::Keep => {}
                Placement::Existing(id) => {
                    let room = &rooms().into_iter().find(|(i, _)| *i == id).unwrap().1;
                    let fits = match &named {
                        Some(n) if !fold_name(n).is_empty() => fold_name(n) == fold_name(room),
                        _ => fold_name(&name).contains(&fold_name(room)),
                    };
                    prop_assert!(fits);
                }
                Placement::Create(created) => {
                    prop_assert_eq!(Some(created.as_str()), named.as_deref().map(str::trim));
                }
            }
        }
    }
}
