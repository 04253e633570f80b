from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.b_tree_map import BTreeMap





T = TypeVar("T", bound="ConnectRequest")



@_attrs_define
class ConnectRequest:
    """ 
        Attributes:
            connector_id (UUID):
            property_id (UUID):
            tenant_id (UUID):
            input_ (BTreeMap | Unset):
     """

    connector_id: UUID
    property_id: UUID
    tenant_id: UUID
    input_: BTreeMap | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.b_tree_map import BTreeMap # noqa: PLC0415
        connector_id = str(self.connector_id)

        property_id = str(self.property_id)

        tenant_id = str(self.tenant_id)

        input_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_, Unset):
            input_ = self.input_.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "connectorId": connector_id,
            "propertyId": property_id,
            "tenantId": tenant_id,
        })
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.b_tree_map import BTreeMap # noqa: PLC0415
        d = dict(src_dict)
        connector_id = UUID(d.pop("connectorId"))




        property_id = UUID(d.pop("propertyId"))




        tenant_id = UUID(d.pop("tenantId"))




        _input_ = d.pop("input", UNSET)
        input_: BTreeMap | Unset
        if isinstance(_input_,  Unset):
            input_ = UNSET
        else:
            input_ = BTreeMap.from_dict(_input_)




        connect_request = cls(
            connector_id=connector_id,
            property_id=property_id,
            tenant_id=tenant_id,
            input_=input_,
        )

        return connect_request

