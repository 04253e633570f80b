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






T = TypeVar("T", bound="ChangeMemberRequest")



@_attrs_define
class ChangeMemberRequest:
    """ What changes; absent fields stay as they are.

        Attributes:
            expires_at (datetime.datetime | None | Unset): When a guest's stay ends.
            phone_thing_id (None | Unset | UUID):
            property_id (None | Unset | UUID):
            require_network (bool | None | Unset):
            role (HouseholdRole | None | Unset):
            starts_at (datetime.datetime | None | Unset): When a guest's stay starts.
     """

    expires_at: datetime.datetime | None | Unset = UNSET
    phone_thing_id: None | Unset | UUID = UNSET
    property_id: None | Unset | UUID = UNSET
    require_network: bool | None | Unset = UNSET
    role: HouseholdRole | None | Unset = UNSET
    starts_at: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        phone_thing_id: None | str | Unset
        if isinstance(self.phone_thing_id, Unset):
            phone_thing_id = UNSET
        elif isinstance(self.phone_thing_id, UUID):
            phone_thing_id = str(self.phone_thing_id)
        else:
            phone_thing_id = self.phone_thing_id

        property_id: None | str | Unset
        if isinstance(self.property_id, Unset):
            property_id = UNSET
        elif isinstance(self.property_id, UUID):
            property_id = str(self.property_id)
        else:
            property_id = self.property_id

        require_network: bool | None | Unset
        if isinstance(self.require_network, Unset):
            require_network = UNSET
        else:
            require_network = self.require_network

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, HouseholdRole):
            role = self.role.value
        else:
            role = self.role

        starts_at: None | str | Unset
        if isinstance(self.starts_at, Unset):
            starts_at = UNSET
        elif isinstance(self.starts_at, datetime.datetime):
            starts_at = self.starts_at.isoformat()
        else:
            starts_at = self.starts_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at
        if phone_thing_id is not UNSET:
            field_dict["phoneThingId"] = phone_thing_id
        if property_id is not UNSET:
            field_dict["propertyId"] = property_id
        if require_network is not UNSET:
            field_dict["requireNetwork"] = require_network
        if role is not UNSET:
            field_dict["role"] = role
        if starts_at is not UNSET:
            field_dict["startsAt"] = starts_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
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


        def _parse_phone_thing_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                phone_thing_id_type_0 = UUID(data)



                return phone_thing_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        phone_thing_id = _parse_phone_thing_id(d.pop("phoneThingId", UNSET))


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


        def _parse_require_network(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        require_network = _parse_require_network(d.pop("requireNetwork", UNSET))


        def _parse_role(data: object) -> HouseholdRole | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_1 = HouseholdRole(data)



                return role_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HouseholdRole | None | Unset, data)

        role = _parse_role(d.pop("role", UNSET))


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


        change_member_request = cls(
            expires_at=expires_at,
            phone_thing_id=phone_thing_id,
            property_id=property_id,
            require_network=require_network,
            role=role,
            starts_at=starts_at,
        )

        return change_member_request

