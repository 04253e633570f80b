from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.stay_state import StayState
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="GuestStay")



@_attrs_define
class GuestStay:
    """ A guest's stay as its household and booking system see it.

        Attributes:
            check_in (datetime.datetime):
            check_out (datetime.datetime):
            email (str):
            property_id (UUID):
            require_network (bool):
            reservation_key (str):
            state (StayState): Where a stay stands (what `GET /guests/{reservationKey}` answers).
     """

    check_in: datetime.datetime
    check_out: datetime.datetime
    email: str
    property_id: UUID
    require_network: bool
    reservation_key: str
    state: StayState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        check_in = self.check_in.isoformat()

        check_out = self.check_out.isoformat()

        email = self.email

        property_id = str(self.property_id)

        require_network = self.require_network

        reservation_key = self.reservation_key

        state = self.state.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "checkIn": check_in,
            "checkOut": check_out,
            "email": email,
            "propertyId": property_id,
            "requireNetwork": require_network,
            "reservationKey": reservation_key,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        check_in = datetime.datetime.fromisoformat(d.pop("checkIn"))




        check_out = datetime.datetime.fromisoformat(d.pop("checkOut"))




        email = d.pop("email")

        property_id = UUID(d.pop("propertyId"))




        require_network = d.pop("requireNetwork")

        reservation_key = d.pop("reservationKey")

        state = StayState(d.pop("state"))




        guest_stay = cls(
            check_in=check_in,
            check_out=check_out,
            email=email,
            property_id=property_id,
            require_network=require_network,
            reservation_key=reservation_key,
            state=state,
        )


        guest_stay.additional_properties = d
        return guest_stay

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
