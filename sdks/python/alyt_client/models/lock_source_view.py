from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="LockSourceView")



@_attrs_define
class LockSourceView:
    """ Where a keypad disarm came from: a device of the home (`deviceId`), or
    an endpoint of a connector's integration (`connectorId`,
    `integrationId`).

        Attributes:
            connector_id (None | str):
            device_id (None | str):
            integration_id (None | str):
            kind (str): `device` or `endpoint`.
     """

    connector_id: None | str
    device_id: None | str
    integration_id: None | str
    kind: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        connector_id: None | str
        connector_id = self.connector_id

        device_id: None | str
        device_id = self.device_id

        integration_id: None | str
        integration_id = self.integration_id

        kind = self.kind


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "connectorId": connector_id,
            "deviceId": device_id,
            "integrationId": integration_id,
            "kind": kind,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_connector_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        connector_id = _parse_connector_id(d.pop("connectorId"))


        def _parse_device_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        device_id = _parse_device_id(d.pop("deviceId"))


        def _parse_integration_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        integration_id = _parse_integration_id(d.pop("integrationId"))


        kind = d.pop("kind")

        lock_source_view = cls(
            connector_id=connector_id,
            device_id=device_id,
            integration_id=integration_id,
            kind=kind,
        )


        lock_source_view.additional_properties = d
        return lock_source_view

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
