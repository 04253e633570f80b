from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.device_settings_by_capability import DeviceSettingsByCapability





T = TypeVar("T", bound="DeviceSettings")



@_attrs_define
class DeviceSettings:
    """ A device's settings.

        Attributes:
            by_capability (DeviceSettingsByCapability): Keyed by lower-cased capability; a capability the device lacks has
                no key.
            device_id (UUID):
            enabled (bool):
            updated_at (datetime.datetime):
     """

    by_capability: DeviceSettingsByCapability
    device_id: UUID
    enabled: bool
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.device_settings_by_capability import DeviceSettingsByCapability # noqa: PLC0415
        by_capability = self.by_capability.to_dict()

        device_id = str(self.device_id)

        enabled = self.enabled

        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "byCapability": by_capability,
            "deviceId": device_id,
            "enabled": enabled,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device_settings_by_capability import DeviceSettingsByCapability # noqa: PLC0415
        d = dict(src_dict)
        by_capability = DeviceSettingsByCapability.from_dict(d.pop("byCapability"))




        device_id = UUID(d.pop("deviceId"))




        enabled = d.pop("enabled")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))




        device_settings = cls(
            by_capability=by_capability,
            device_id=device_id,
            enabled=enabled,
            updated_at=updated_at,
        )


        device_settings.additional_properties = d
        return device_settings

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
