from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.household_role import HouseholdRole
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="AddMemberRequest")



@_attrs_define
class AddMemberRequest:
    """ A grant by user id.

        Attributes:
            role (HouseholdRole): Roles within a household (client).
            user_id (UUID):
            expires_at (datetime.datetime | None | Unset): When a guest's stay ends (required for guests, in the future).
            property_id (None | Unset | UUID):
            starts_at (datetime.datetime | None | Unset): When a guest's stay starts (default: now).
     """

    role: HouseholdRole
    user_id: UUID
    expires_at: datetime.datetime | None | Unset = UNSET
    property_id: None | Unset | UUID = UNSET
    starts_at: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        user_id = str(self.user_id)

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        property_id: None | str | Unset
        if isinstance(self.property_id, Unset):
            property_id = UNSET
        elif isinstance(self.property_id, UUID):
            property_id = str(self.property_id)
        else:
            property_id = self.property_id

        starts_at: None | str | Unset
        if isinstance(self.starts_at, Unset):
            starts_at = UNSET
        elif isinstance(self.starts_at, datetime.datetime):
            starts_at = self.starts_at.isoformat()
        else:
            starts_at = self.starts_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "role": role,
            "userId": user_id,
        })
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at
        if property_id is not UNSET:
            field_dict["propertyId"] = property_id
        if starts_at is not UNSET:
            field_dict["startsAt"] = starts_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        role = HouseholdRole(d.pop("role"))




        user_id = UUID(d.pop("userId"))




        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expiresAt", UNSET))


        def _parse_property_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                property_id_type_1 = UUID(data)



                return property_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        property_id = _parse_property_id(d.pop("propertyId", UNSET))


        def _parse_starts_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                starts_at_type_0 = datetime.datetime.fromisoformat(data)



                return starts_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        starts_at = _parse_starts_at(d.pop("startsAt", UNSET))


        add_member_request = cls(
            role=role,
            user_id=user_id,
            expires_at=expires_at,
            property_id=property_id,
            starts_at=starts_at,
        )

        return add_member_request

