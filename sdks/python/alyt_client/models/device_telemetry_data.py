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
  from ..models.device_telemetry_data_metrics import DeviceTelemetryDataMetrics





T = TypeVar("T", bound="DeviceTelemetryData")



@_attrs_define
class DeviceTelemetryData:
    """ `device.telemetry`: readings published.

        Attributes:
            at (datetime.datetime):
            device_id (UUID):
            metrics (DeviceTelemetryDataMetrics):
     """

    at: datetime.datetime
    device_id: UUID
    metrics: DeviceTelemetryDataMetrics
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.device_telemetry_data_metrics import DeviceTelemetryDataMetrics # noqa: PLC0415
        at = self.at.isoformat()

        device_id = str(self.device_id)

        metrics = self.metrics.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "deviceId": device_id,
            "metrics": metrics,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device_telemetry_data_metrics import DeviceTelemetryDataMetrics # noqa: PLC0415
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        device_id = UUID(d.pop("deviceId"))




        metrics = DeviceTelemetryDataMetrics.from_dict(d.pop("metrics"))




        device_telemetry_data = cls(
            at=at,
            device_id=device_id,
            metrics=metrics,
        )


        device_telemetry_data.additional_properties = d
        return device_telemetry_data

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
