from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.household_role import HouseholdRole
from ..models.pending_state import PendingState
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="ListResponseInvitationItemsItem")



@_attrs_define
class ListResponseInvitationItemsItem:
    """ A pending invitation as the household's managers see it (never its link).

        Attributes:
            created_at (datetime.datetime):
            email (str):
            expires_at (datetime.datetime | None):
            id (UUID):
            invited_by (None | UUID):
            link_expires_at (datetime.datetime): When the current link stops working (7 days after it was sent).
            name (None | str):
            phone_thing_id (None | UUID):
            property_id (None | UUID):
            require_network (bool):
            reservation_key (None | str):
            role (HouseholdRole): Roles within a household (client).
            sends (int): How many links were sent (1, plus one per resend).
            sent_at (datetime.datetime): When the current link was sent.
            starts_at (datetime.datetime | None):
            state (PendingState): What a pending invitation looks like to the people who manage the
                household: waiting, or its link ran out (resend it).
     """

    created_at: datetime.datetime
    email: str
    expires_at: datetime.datetime | None
    id: UUID
    invited_by: None | UUID
    link_expires_at: datetime.datetime
    name: None | str
    phone_thing_id: None | UUID
    property_id: None | UUID
    require_network: bool
    reservation_key: None | str
    role: HouseholdRole
    sends: int
    sent_at: datetime.datetime
    starts_at: datetime.datetime | None
    state: PendingState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        email = self.email

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        id = str(self.id)

        invited_by: None | str
        if isinstance(self.invited_by, UUID):
            invited_by = str(self.invited_by)
        else:
            invited_by = self.invited_by

        link_expires_at = self.link_expires_at.isoformat()

        name: None | str
        name = self.name

        phone_thing_id: None | str
        if isinstance(self.phone_thing_id, UUID):
            phone_thing_id = str(self.phone_thing_id)
        else:
            phone_thing_id = self.phone_thing_id

        property_id: None | str
        if isinstance(self.property_id, UUID):
            property_id = str(self.property_id)
        else:
            property_id = self.property_id

        require_network = self.require_network

        reservation_key: None | str
        reservation_key = self.reservation_key

        role = self.role.value

        sends = self.sends

        sent_at = self.sent_at.isoformat()

        starts_at: None | str
        if isinstance(self.starts_at, datetime.datetime):
            starts_at = self.starts_at.isoformat()
        else:
            starts_at = self.starts_at

        state = self.state.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "email": email,
            "expiresAt": expires_at,
            "id": id,
            "invitedBy": invited_by,
            "linkExpiresAt": link_expires_at,
            "name": name,
            "phoneThingId": phone_thing_id,
            "propertyId": property_id,
            "requireNetwork": require_network,
            "reservationKey": reservation_key,
            "role": role,
            "sends": sends,
            "sentAt": sent_at,
            "startsAt": starts_at,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        email = d.pop("email")

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expiresAt"))


        id = UUID(d.pop("id"))




        def _parse_invited_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                invited_by_type_1 = UUID(data)



                return invited_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        invited_by = _parse_invited_by(d.pop("invitedBy"))


        link_expires_at = datetime.datetime.fromisoformat(d.pop("linkExpiresAt"))




        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))


        def _parse_phone_thing_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                phone_thing_id_type_0 = UUID(data)



                return phone_thing_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        phone_thing_id = _parse_phone_thing_id(d.pop("phoneThingId"))


        def _parse_property_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                property_id_type_1 = UUID(data)



                return property_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        property_id = _parse_property_id(d.pop("propertyId"))


        require_network = d.pop("requireNetwork")

        def _parse_reservation_key(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reservation_key = _parse_reservation_key(d.pop("reservationKey"))


        role = HouseholdRole(d.pop("role"))




        sends = d.pop("sends")

        sent_at = datetime.datetime.fromisoformat(d.pop("sentAt"))




        def _parse_starts_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                starts_at_type_0 = datetime.datetime.fromisoformat(data)



                return starts_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        starts_at = _parse_starts_at(d.pop("startsAt"))


        state = PendingState(d.pop("state"))




        list_response_invitation_items_item = cls(
            created_at=created_at,
            email=email,
            expires_at=expires_at,
            id=id,
            invited_by=invited_by,
            link_expires_at=link_expires_at,
            name=name,
            phone_thing_id=phone_thing_id,
            property_id=property_id,
            require_network=require_network,
            reservation_key=reservation_key,
            role=role,
            sends=sends,
            sent_at=sent_at,
            starts_at=starts_at,
            state=state,
        )


        list_response_invitation_items_item.additional_properties = d
        return list_response_invitation_items_item

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
