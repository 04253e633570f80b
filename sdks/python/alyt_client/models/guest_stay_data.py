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






T = TypeVar("T", bound="GuestStayData")



@_attrs_define
class GuestStayData:
    """ The data of `guest.invited`, `guest.checked_in` and `guest.checked_out`
    (payloads the spec leaves to us): the stay by its reservation key, its
    home and window, and the state it is in after the event. No address:
    every subscriber of the tenant hears it, and the booking system knows
    its guest by the key.

        Attributes:
            at (datetime.datetime):
            check_in (datetime.datetime):
            check_out (datetime.datetime):
            client_id (UUID):
            property_id (UUID):
            reservation_key (str):
            state (StayState): Where a stay stands (what `GET /guests/{reservationKey}` answers).
     """

    at: datetime.datetime
    check_in: datetime.datetime
    check_out: datetime.datetime
    client_id: UUID
    property_id: UUID
    reservation_key: str
    state: StayState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        check_in = self.check_in.isoformat()

        check_out = self.check_out.isoformat()

        client_id = str(self.client_id)

        property_id = str(self.property_id)

        reservation_key = self.reservation_key

        state = self.state.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "checkIn": check_in,
            "checkOut": check_out,
            "clientId": client_id,
            "propertyId": property_id,
            "reservationKey": reservation_key,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        check_in = datetime.datetime.fromisoformat(d.pop("checkIn"))




        check_out = datetime.datetime.fromisoformat(d.pop("checkOut"))




        client_id = UUID(d.pop("clientId"))




        property_id = UUID(d.pop("propertyId"))




        reservation_key = d.pop("reservationKey")

        state = StayState(d.pop("state"))




        guest_stay_data = cls(
            at=at,
            check_in=check_in,
            check_out=check_out,
            client_id=client_id,
            property_id=property_id,
            reservation_key=reservation_key,
            state=state,
        )


        guest_stay_data.additional_properties = d
        return guest_stay_data

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
