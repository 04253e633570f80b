from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.profile import Profile
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.device import Device
  from ..models.scenario_view import ScenarioView





T = TypeVar("T", bound="VirtualDevice")



@_attrs_define
class VirtualDevice:
    """ A virtual device: its device row, its profile and its scenario.

        Attributes:
            detached_at (datetime.datetime | None): Since when a client of the developer's speaks for it instead of the
                simulator (`POST …/detach`); null while the simulator drives it.
            device (Device): A device row (spec: Resources > Device). Every field is always present.
            model (str): The model code of the profile (`ALSIML`, ...).
            profile (Profile): A virtual-device profile: the kind of device the simulator plays, with
                its capabilities and the telemetry it reports.
            run_id (None | UUID): The script run that plays it now (`POST …/runs`); null otherwise.
            scenario (ScenarioView): A scenario as set and as in effect now.
     """

    detached_at: datetime.datetime | None
    device: Device
    model: str
    profile: Profile
    run_id: None | UUID
    scenario: ScenarioView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.device import Device # noqa: PLC0415
        from ..models.scenario_view import ScenarioView # noqa: PLC0415
        detached_at: None | str
        if isinstance(self.detached_at, datetime.datetime):
            detached_at = self.detached_at.isoformat()
        else:
            detached_at = self.detached_at

        device = self.device.to_dict()

        model = self.model

        profile = self.profile.value

        run_id: None | str
        if isinstance(self.run_id, UUID):
            run_id = str(self.run_id)
        else:
            run_id = self.run_id

        scenario = self.scenario.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "detachedAt": detached_at,
            "device": device,
            "model": model,
            "profile": profile,
            "runId": run_id,
            "scenario": scenario,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device import Device # noqa: PLC0415
        from ..models.scenario_view import ScenarioView # noqa: PLC0415
        d = dict(src_dict)
        def _parse_detached_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                detached_at_type_0 = datetime.datetime.fromisoformat(data)



                return detached_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        detached_at = _parse_detached_at(d.pop("detachedAt"))


        device = Device.from_dict(d.pop("device"))




        model = d.pop("model")

        profile = Profile(d.pop("profile"))




        def _parse_run_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_id_type_0 = UUID(data)



                return run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        run_id = _parse_run_id(d.pop("runId"))


        scenario = ScenarioView.from_dict(d.pop("scenario"))




        virtual_device = cls(
            detached_at=detached_at,
            device=device,
            model=model,
            profile=profile,
            run_id=run_id,
            scenario=scenario,
        )


        virtual_device.additional_properties = d
        return virtual_device

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
