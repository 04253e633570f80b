from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.presented_as import PresentedAs
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="PatchEndpointRequest")



@_attrs_define
class PatchEndpointRequest:
    """ What a PATCH may change; absent fields stay.

        Attributes:
            enabled (bool | Unset): true or false (not null): whether the household uses it.
            name (None | str | Unset): 1-80 characters.
            presented_as (None | PresentedAs | Unset):
            room_id (None | Unset | UUID):
     """

    enabled: bool | Unset = UNSET
    name: None | str | Unset = UNSET
    presented_as: None | PresentedAs | Unset = UNSET
    room_id: None | Unset | UUID = UNSET





    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        presented_as: None | str | Unset
        if isinstance(self.presented_as, Unset):
            presented_as = UNSET
        elif isinstance(self.presented_as, PresentedAs):
            presented_as = self.presented_as.value
        else:
            presented_as = self.presented_as

        room_id: None | str | Unset
        if isinstance(self.room_id, Unset):
            room_id = UNSET
        elif isinstance(self.room_id, UUID):
            room_id = str(self.room_id)
        else:
            room_id = self.room_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if name is not UNSET:
            field_dict["name"] = name
        if presented_as is not UNSET:
            field_dict["presentedAs"] = presented_as
        if room_id is not UNSET:
            field_dict["roomId"] = room_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled", UNSET)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_presented_as(data: object) -> None | PresentedAs | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                presented_as_type_1 = PresentedAs(data)



                return presented_as_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PresentedAs | Unset, data)

        presented_as = _parse_presented_as(d.pop("presentedAs", UNSET))


        def _parse_room_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                room_id_type_1 = UUID(data)



                return room_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        room_id = _parse_room_id(d.pop("roomId", UNSET))


        patch_endpoint_request = cls(
            enabled=enabled,
            name=name,
            presented_as=presented_as,
            room_id=room_id,
        )

        return patch_endpoint_request

