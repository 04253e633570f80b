from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="DiscoverRequest")



@_attrs_define
class DiscoverRequest:
    """ 
        Attributes:
            property_id (UUID):
            tenant_id (UUID):
     """

    property_id: UUID
    tenant_id: UUID





    def to_dict(self) -> dict[str, Any]:
        property_id = str(self.property_id)

        tenant_id = str(self.tenant_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "propertyId": property_id,
            "tenantId": tenant_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        property_id = UUID(d.pop("propertyId"))




        tenant_id = UUID(d.pop("tenantId"))




        discover_request = cls(
            property_id=property_id,
            tenant_id=tenant_id,
        )

        return discover_request

