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






T = TypeVar("T", bound="MeHome")



@_attrs_define
class MeHome:
    """ 
        Attributes:
            client_id (UUID):
            message (None | str): Why the home is not in the claims, for `needs-network`; null
                otherwise.
            property_id (None | UUID):
            role (HouseholdRole): Roles within a household (client).
            status (GrantStatus): Where a grant stands now (the Me response's homes and the members list).
            tenant_id (UUID):
            until (datetime.datetime | None): End of a guest's stay.
     """

    client_id: UUID
    message: None | str
    property_id: None | UUID
    role: HouseholdRole
    status: GrantStatus
    tenant_id: UUID
    until: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        client_id = str(self.client_id)

        message: None | str
        message = self.message

        property_id: None | str
        if isinstance(self.property_id, UUID):
            property_id = str(self.property_id)
        else:
            property_id = self.property_id

        role = self.role.value

        status = self.status.value

        tenant_id = str(self.tenant_id)

        until: None | str
        if isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "clientId": client_id,
            "message": message,
            "propertyId": property_id,
            "role": role,
            "status": status,
            "tenantId": tenant_id,
            "until": until,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_id = UUID(d.pop("clientId"))




        def _parse_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        message = _parse_message(d.pop("message"))


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


        role = HouseholdRole(d.pop("role"))




        status = GrantStatus(d.pop("status"))




        tenant_id = UUID(d.pop("tenantId"))




        def _parse_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)



                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        until = _parse_until(d.pop("until"))


        me_home = cls(
            client_id=client_id,
            message=message,
            property_id=property_id,
            role=role,
            status=status,
            tenant_id=tenant_id,
            until=until,
        )


        me_home.additional_properties = d
        return me_home

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
