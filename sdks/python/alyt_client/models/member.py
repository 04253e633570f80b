from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.grant_status import GrantStatus
from ..models.household_role import HouseholdRole
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.member_phone import MemberPhone
  from ..models.network_condition import NetworkCondition





T = TypeVar("T", bound="Member")



@_attrs_define
class Member:
    """ One person of a household: every field the people list shows is
    present, null where it does not apply (or is not kept yet).

        Attributes:
            avatar (None | str): Always null for now: the platform keeps no pictures and no
                operation sets one (a picture needs a checked upload or URL, and a
                person has no profile to change yet), so clients draw initials. It
                will be the picture's URL once a person can set one.
            created_at (datetime.datetime):
            email (None | str): The person's sign-in address (null if the account was deleted).
            expires_at (datetime.datetime | None):
            invited_by (None | UUID):
            last_seen (datetime.datetime | None): When the home last saw the person's phone on its network (the
                outcome of the last check, never an address); null when never.
            network_condition (NetworkCondition | None):
            phone (MemberPhone | None):
            property_id (None | UUID):
            reservation_key (None | str): The booking's reservation key of a guest's stay; null otherwise.
            role (HouseholdRole): Roles within a household (client).
            starts_at (datetime.datetime | None): A guest's stay.
            status (GrantStatus): Where a grant stands now (the Me response's homes and the members list).
            user_id (UUID):
     """

    avatar: None | str
    created_at: datetime.datetime
    email: None | str
    expires_at: datetime.datetime | None
    invited_by: None | UUID
    last_seen: datetime.datetime | None
    network_condition: NetworkCondition | None
    phone: MemberPhone | None
    property_id: None | UUID
    reservation_key: None | str
    role: HouseholdRole
    starts_at: datetime.datetime | None
    status: GrantStatus
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.member_phone import MemberPhone # noqa: PLC0415
        from ..models.network_condition import NetworkCondition # noqa: PLC0415
        avatar: None | str
        avatar = self.avatar

        created_at = self.created_at.isoformat()

        email: None | str
        email = self.email

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        invited_by: None | str
        if isinstance(self.invited_by, UUID):
            invited_by = str(self.invited_by)
        else:
            invited_by = self.invited_by

        last_seen: None | str
        if isinstance(self.last_seen, datetime.datetime):
            last_seen = self.last_seen.isoformat()
        else:
            last_seen = self.last_seen

        network_condition: dict[str, Any] | None
        if isinstance(self.network_condition, NetworkCondition):
            network_condition = self.network_condition.to_dict()
        else:
            network_condition = self.network_condition

        phone: dict[str, Any] | None
        if isinstance(self.phone, MemberPhone):
            phone = self.phone.to_dict()
        else:
            phone = self.phone

        property_id: None | str
        if isinstance(self.property_id, UUID):
            property_id = str(self.property_id)
        else:
            property_id = self.property_id

        reservation_key: None | str
        reservation_key = self.reservation_key

        role = self.role.value

        starts_at: None | str
        if isinstance(self.starts_at, datetime.datetime):
            starts_at = self.starts_at.isoformat()
        else:
            starts_at = self.starts_at

        status = self.status.value

        user_id = str(self.user_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "avatar": avatar,
            "createdAt": created_at,
            "email": email,
            "expiresAt": expires_at,
            "invitedBy": invited_by,
            "lastSeen": last_seen,
            "networkCondition": network_condition,
            "phone": phone,
            "propertyId": property_id,
            "reservationKey": reservation_key,
            "role": role,
            "startsAt": starts_at,
            "status": status,
            "userId": user_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.member_phone import MemberPhone # noqa: PLC0415
        from ..models.network_condition import NetworkCondition # noqa: PLC0415
        d = dict(src_dict)
        def _parse_avatar(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        avatar = _parse_avatar(d.pop("avatar"))


        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        def _parse_email(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        email = _parse_email(d.pop("email"))


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


        def _parse_last_seen(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_seen_type_0 = datetime.datetime.fromisoformat(data)



                return last_seen_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_seen = _parse_last_seen(d.pop("lastSeen"))


        def _parse_network_condition(data: object) -> NetworkCondition | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                network_condition_type_1 = NetworkCondition.from_dict(data)



                return network_condition_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NetworkCondition | None, data)

        network_condition = _parse_network_condition(d.pop("networkCondition"))


        def _parse_phone(data: object) -> MemberPhone | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                phone_type_1 = MemberPhone.from_dict(data)



                return phone_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemberPhone | None, data)

        phone = _parse_phone(d.pop("phone"))


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


        def _parse_reservation_key(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reservation_key = _parse_reservation_key(d.pop("reservationKey"))


        role = HouseholdRole(d.pop("role"))




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


        status = GrantStatus(d.pop("status"))




        user_id = UUID(d.pop("userId"))




        member = cls(
            avatar=avatar,
            created_at=created_at,
            email=email,
            expires_at=expires_at,
            invited_by=invited_by,
            last_seen=last_seen,
            network_condition=network_condition,
            phone=phone,
            property_id=property_id,
            reservation_key=reservation_key,
            role=role,
            starts_at=starts_at,
            status=status,
            user_id=user_id,
        )


        member.additional_properties = d
        return member

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
