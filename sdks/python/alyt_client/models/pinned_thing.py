from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pinned_thing_kind import PinnedThingKind
from uuid import UUID






T = TypeVar("T", bound="PinnedThing")



@_attrs_define
class PinnedThing:
    """ A pinned thing.

        Attributes:
            id (UUID):
            kind (PinnedThingKind): What a thing pin points at.
     """

    id: UUID
    kind: PinnedThingKind





    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        kind = self.kind.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "kind": kind,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        kind = PinnedThingKind(d.pop("kind"))




        pinned_thing = cls(
            id=id,
            kind=kind,
        )

        return pinned_thing

