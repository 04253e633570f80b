from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.house import House
  from ..models.overview_property import OverviewProperty
  from ..models.room_view import RoomView
  from ..models.thing import Thing





T = TypeVar("T", bound="Overview")



@_attrs_define
class Overview:
    """ A home at a glance.

        Attributes:
            house (House): The all-the-house tile.
            property_ (OverviewProperty): The home of an overview.
            rooms (list[RoomView]):
            unassigned (list[Thing]): Things without a room.
     """

    house: House
    property_: OverviewProperty
    rooms: list[RoomView]
    unassigned: list[Thing]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.house import House # noqa: PLC0415
        from ..models.overview_property import OverviewProperty # noqa: PLC0415
        from ..models.room_view import RoomView # noqa: PLC0415
        from ..models.thing import Thing # noqa: PLC0415
        house = self.house.to_dict()

        property_ = self.property_.to_dict()

        rooms = []
        for rooms_item_data in self.rooms:
            rooms_item = rooms_item_data.to_dict()
            rooms.append(rooms_item)



        unassigned = []
        for unassigned_item_data in self.unassigned:
            unassigned_item = unassigned_item_data.to_dict()
            unassigned.append(unassigned_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "house": house,
            "property": property_,
            "rooms": rooms,
            "unassigned": unassigned,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.house import House # noqa: PLC0415
        from ..models.overview_property import OverviewProperty # noqa: PLC0415
        from ..models.room_view import RoomView # noqa: PLC0415
        from ..models.thing import Thing # noqa: PLC0415
        d = dict(src_dict)
        house = House.from_dict(d.pop("house"))




        property_ = OverviewProperty.from_dict(d.pop("property"))




        rooms = []
        _rooms = d.pop("rooms")
        for rooms_item_data in (_rooms):
            rooms_item = RoomView.from_dict(rooms_item_data)



            rooms.append(rooms_item)


        unassigned = []
        _unassigned = d.pop("unassigned")
        for unassigned_item_data in (_unassigned):
            unassigned_item = Thing.from_dict(unassigned_item_data)



            unassigned.append(unassigned_item)


        overview = cls(
            house=house,
            property_=property_,
            rooms=rooms,
            unassigned=unassigned,
        )


        overview.additional_properties = d
        return overview

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
