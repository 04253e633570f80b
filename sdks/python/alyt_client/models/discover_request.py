from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="DiscoverRequest")



@_attrs_define
class DiscoverRequest:
    """ 
        Attributes:
            property_id (UUID):
            tenant_id (None | Unset | UUID):
     """

    property_id: UUID
    tenant_id: None | Unset | UUID = UNSET





    def to_dict(self) -> dict[str, Any]:
        property_id = str(self.property_id)

        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        elif isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "propertyId": property_id,
        })
        if tenant_id is not UNSET:
            field_dict["tenantId"] = tenant_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        property_id = UUID(d.pop("propertyId"))




        def _parse_tenant_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tenant_id_type_1 = UUID(data)



                return tenant_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        tenant_id = _parse_tenant_id(d.pop("tenantId", UNSET))


        discover_request = cls(
            property_id=property_id,
            tenant_id=tenant_id,
        )

        return discover_request

