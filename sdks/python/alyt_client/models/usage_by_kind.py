from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.kind_usage import KindUsage





T = TypeVar("T", bound="UsageByKind")



@_attrs_define
class UsageByKind:
    """ Usage per kind.

        Attributes:
            mqtt_messages (KindUsage): Usage of one kind in its current window.
            requests (KindUsage): Usage of one kind in its current window.
            virtual_devices (KindUsage): Usage of one kind in its current window.
     """

    mqtt_messages: KindUsage
    requests: KindUsage
    virtual_devices: KindUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.kind_usage import KindUsage # noqa: PLC0415
        mqtt_messages = self.mqtt_messages.to_dict()

        requests = self.requests.to_dict()

        virtual_devices = self.virtual_devices.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "MQTT_MESSAGES": mqtt_messages,
            "REQUESTS": requests,
            "VIRTUAL_DEVICES": virtual_devices,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kind_usage import KindUsage # noqa: PLC0415
        d = dict(src_dict)
        mqtt_messages = KindUsage.from_dict(d.pop("MQTT_MESSAGES"))




        requests = KindUsage.from_dict(d.pop("REQUESTS"))




        virtual_devices = KindUsage.from_dict(d.pop("VIRTUAL_DEVICES"))




        usage_by_kind = cls(
            mqtt_messages=mqtt_messages,
            requests=requests,
            virtual_devices=virtual_devices,
        )


        usage_by_kind.additional_properties = d
        return usage_by_kind

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
