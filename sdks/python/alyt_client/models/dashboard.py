from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.pin_type_0 import PinType0
  from ..models.pin_type_1 import PinType1





T = TypeVar("T", bound="Dashboard")



@_attrs_define
class Dashboard:
    """ A home's dashboard.

        Attributes:
            pins (list[PinType0 | PinType1]): At most 40, in the order drawn.
            property_id (UUID):
     """

    pins: list[PinType0 | PinType1]
    property_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.pin_type_0 import PinType0 # noqa: PLC0415
        from ..models.pin_type_1 import PinType1 # noqa: PLC0415
        pins = []
        for pins_item_data in self.pins:
            pins_item: dict[str, Any]
            if isinstance(pins_item_data, PinType0):
                pins_item = pins_item_data.to_dict()
            else:
                pins_item = pins_item_data.to_dict()

            pins.append(pins_item)



        property_id = str(self.property_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "pins": pins,
            "propertyId": property_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pin_type_0 import PinType0 # noqa: PLC0415
        from ..models.pin_type_1 import PinType1 # noqa: PLC0415
        d = dict(src_dict)
        pins = []
        _pins = d.pop("pins")
        for pins_item_data in (_pins):
            def _parse_pins_item(data: object) -> PinType0 | PinType1:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_pin_type_0 = PinType0.from_dict(data)



                    return componentsschemas_pin_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_pin_type_1 = PinType1.from_dict(data)



                return componentsschemas_pin_type_1

            pins_item = _parse_pins_item(pins_item_data)

            pins.append(pins_item)


        property_id = UUID(d.pop("propertyId"))




        dashboard = cls(
            pins=pins,
            property_id=property_id,
        )


        dashboard.additional_properties = d
        return dashboard

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
