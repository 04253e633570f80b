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
            input_ (BTreeMap | Unset):
            tenant_id (None | Unset | UUID):
     """

    connector_id: UUID
    property_id: UUID
    input_: BTreeMap | Unset = UNSET
    tenant_id: None | Unset | UUID = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.b_tree_map import BTreeMap # noqa: PLC0415
        connector_id = str(self.connector_id)

        property_id = str(self.property_id)

        input_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_, Unset):
            input_ = self.input_.to_dict()

        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        elif isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "connectorId": connector_id,
            "propertyId": property_id,
        })
        if input_ is not UNSET:
            field_dict["input"] = input_
        if tenant_id is not UNSET:
            field_dict["tenantId"] = tenant_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.b_tree_map import BTreeMap # noqa: PLC0415
        d = dict(src_dict)
        connector_id = UUID(d.pop("connectorId"))




        property_id = UUID(d.pop("propertyId"))




        _input_ = d.pop("input", UNSET)
        input_: BTreeMap | Unset
        if isinstance(_input_,  Unset):
            input_ = UNSET
        else:
            input_ = BTreeMap.from_dict(_input_)




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


        connect_request = cls(
            connector_id=connector_id,
            property_id=property_id,
            input_=input_,
            tenant_id=tenant_id,
        )

        return connect_request

