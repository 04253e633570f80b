from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.rotated_credentials import RotatedCredentials
  from ..models.virtual_device import VirtualDevice





T = TypeVar("T", bound="DetachedVirtualDevice")



@_attrs_define
class DetachedVirtualDevice:
    """ A detached virtual device and the credential to speak for it.

        Attributes:
            credentials (RotatedCredentials): The answer of `POST /v1/devices/{deviceId}/credentials`.
            virtual_device (VirtualDevice): A virtual device: its device row, its profile and its scenario.
     """

    credentials: RotatedCredentials
    virtual_device: VirtualDevice
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.rotated_credentials import RotatedCredentials # noqa: PLC0415
        from ..models.virtual_device import VirtualDevice # noqa: PLC0415
        credentials = self.credentials.to_dict()

        virtual_device = self.virtual_device.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "credentials": credentials,
            "virtualDevice": virtual_device,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rotated_credentials import RotatedCredentials # noqa: PLC0415
        from ..models.virtual_device import VirtualDevice # noqa: PLC0415
        d = dict(src_dict)
        credentials = RotatedCredentials.from_dict(d.pop("credentials"))




        virtual_device = VirtualDevice.from_dict(d.pop("virtualDevice"))




        detached_virtual_device = cls(
            credentials=credentials,
            virtual_device=virtual_device,
        )


        detached_virtual_device.additional_properties = d
        return detached_virtual_device

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
