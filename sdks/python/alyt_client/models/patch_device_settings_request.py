from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.patch_device_settings_request_by_capability import PatchDeviceSettingsRequestByCapability





T = TypeVar("T", bound="PatchDeviceSettingsRequest")



@_attrs_define
class PatchDeviceSettingsRequest:
    """ The body of `PATCH /v1/devices/{deviceId}/settings`.

        Attributes:
            by_capability (PatchDeviceSettingsRequestByCapability): Keyed by lower-cased capability of the device (`light`,
                `media_player`, ...); each value an object merged into that
                capability's settings (a `null` member removes that setting).
                Capabilities not named keep their settings.
            enabled (bool | Unset): Whether the settings apply (default true when first set).
     """

    by_capability: PatchDeviceSettingsRequestByCapability
    enabled: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.patch_device_settings_request_by_capability import PatchDeviceSettingsRequestByCapability # noqa: PLC0415
        by_capability = self.by_capability.to_dict()

        enabled = self.enabled


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "byCapability": by_capability,
        })
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_device_settings_request_by_capability import PatchDeviceSettingsRequestByCapability # noqa: PLC0415
        d = dict(src_dict)
        by_capability = PatchDeviceSettingsRequestByCapability.from_dict(d.pop("byCapability"))




        enabled = d.pop("enabled", UNSET)

        patch_device_settings_request = cls(
            by_capability=by_capability,
            enabled=enabled,
        )

        return patch_device_settings_request

