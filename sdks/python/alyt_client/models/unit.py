from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="Unit")



@_attrs_define
class Unit:
    """ A physical board of a device; the burned-in serial lives here.

        Attributes:
            device_id (UUID):
            firmware (None | str):
            id (UUID):
            installed_at (datetime.datetime):
            mac_address (None | str):
            model (None | str):
            removed_at (datetime.datetime | None):
            removed_reason (None | str):
            serial (str):
     """

    device_id: UUID
    firmware: None | str
    id: UUID
    installed_at: datetime.datetime
    mac_address: None | str
    model: None | str
    removed_at: datetime.datetime | None
    removed_reason: None | str
    serial: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        device_id = str(self.device_id)

        firmware: None | str
        firmware = self.firmware

        id = str(self.id)

        installed_at = self.installed_at.isoformat()

        mac_address: None | str
        mac_address = self.mac_address

        model: None | str
        model = self.model

        removed_at: None | str
        if isinstance(self.removed_at, datetime.datetime):
            removed_at = self.removed_at.isoformat()
        else:
            removed_at = self.removed_at

        removed_reason: None | str
        removed_reason = self.removed_reason

        serial = self.serial


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "firmware": firmware,
            "id": id,
            "installedAt": installed_at,
            "macAddress": mac_address,
            "model": model,
            "removedAt": removed_at,
            "removedReason": removed_reason,
            "serial": serial,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        def _parse_firmware(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        firmware = _parse_firmware(d.pop("firmware"))


        id = UUID(d.pop("id"))




        installed_at = datetime.datetime.fromisoformat(d.pop("installedAt"))




        def _parse_mac_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        mac_address = _parse_mac_address(d.pop("macAddress"))


        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))


        def _parse_removed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                removed_at_type_0 = datetime.datetime.fromisoformat(data)



                return removed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        removed_at = _parse_removed_at(d.pop("removedAt"))


        def _parse_removed_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        removed_reason = _parse_removed_reason(d.pop("removedReason"))


        serial = d.pop("serial")

        unit = cls(
            device_id=device_id,
            firmware=firmware,
            id=id,
            installed_at=installed_at,
            mac_address=mac_address,
            model=model,
            removed_at=removed_at,
            removed_reason=removed_reason,
            serial=serial,
        )


        unit.additional_properties = d
        return unit

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
