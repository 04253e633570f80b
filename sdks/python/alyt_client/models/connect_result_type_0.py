from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.connect_result_type_0_status import ConnectResultType0Status
from uuid import UUID






T = TypeVar("T", bound="ConnectResultType0")



@_attrs_define
class ConnectResultType0:
    """ Connected and discovered: `things` endpoints are in the home.

        Attributes:
            discovering (bool): Always false: discovery has finished when this answers.
            integration_id (UUID):
            status (ConnectResultType0Status):
            things (int): Things discovery found (0 when discovery failed: run it again).
     """

    discovering: bool
    integration_id: UUID
    status: ConnectResultType0Status
    things: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        discovering = self.discovering

        integration_id = str(self.integration_id)

        status = self.status.value

        things = self.things


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "discovering": discovering,
            "integrationId": integration_id,
            "status": status,
            "things": things,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        discovering = d.pop("discovering")

        integration_id = UUID(d.pop("integrationId"))




        status = ConnectResultType0Status(d.pop("status"))




        things = d.pop("things")

        connect_result_type_0 = cls(
            discovering=discovering,
            integration_id=integration_id,
            status=status,
            things=things,
        )


        connect_result_type_0.additional_properties = d
        return connect_result_type_0

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
