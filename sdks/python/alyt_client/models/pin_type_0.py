from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pin_type_0_kind import PinType0Kind
from typing import cast

if TYPE_CHECKING:
  from ..models.pinned_thing import PinnedThing





T = TypeVar("T", bound="PinType0")



@_attrs_define
class PinType0:
    """ 
        Attributes:
            kind (PinType0Kind):
            thing (PinnedThing): A pinned thing.
     """

    kind: PinType0Kind
    thing: PinnedThing
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        kind = self.kind.value

        thing = self.thing.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "kind": kind,
            "thing": thing,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        d = dict(src_dict)
        kind = PinType0Kind(d.pop("kind"))




        thing = PinnedThing.from_dict(d.pop("thing"))




        pin_type_0 = cls(
            kind=kind,
            thing=thing,
        )


        pin_type_0.additional_properties = d
        return pin_type_0

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
