from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.household_role import HouseholdRole
from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="ClientGrant")



@_attrs_define
class ClientGrant:
    """ One household grant inside the claims.

        Attributes:
            role (HouseholdRole): Roles within a household (client).
            tenant_id (UUID):
            property_id (UUID | Unset):
     """

    role: HouseholdRole
    tenant_id: UUID
    property_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        tenant_id = str(self.tenant_id)

        property_id: str | Unset = UNSET
        if not isinstance(self.property_id, Unset):
            property_id = str(self.property_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "role": role,
            "tenantId": tenant_id,
        })
        if property_id is not UNSET:
            field_dict["propertyId"] = property_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        role = HouseholdRole(d.pop("role"))




        tenant_id = UUID(d.pop("tenantId"))




        _property_id = d.pop("propertyId", UNSET)
        property_id: UUID | Unset
        if isinstance(_property_id,  Unset):
            property_id = UNSET
        else:
            property_id = UUID(_property_id)




        client_grant = cls(
            role=role,
            tenant_id=tenant_id,
            property_id=property_id,
        )


        client_grant.additional_properties = d
        return client_grant

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
