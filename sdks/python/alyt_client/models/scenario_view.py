from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.scenario import Scenario
from typing import cast
import datetime






T = TypeVar("T", bound="ScenarioView")



@_attrs_define
class ScenarioView:
    """ A scenario as set and as in effect now.

        Attributes:
            effective (Scenario): What a virtual device does besides its normal reporting.
            scenario (Scenario): What a virtual device does besides its normal reporting.
            until (datetime.datetime | None): When a scenario set with `seconds` ends (NORMAL from then on); null
                when it lasts until changed.
     """

    effective: Scenario
    scenario: Scenario
    until: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        effective = self.effective.value

        scenario = self.scenario.value

        until: None | str
        if isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "effective": effective,
            "scenario": scenario,
            "until": until,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        effective = Scenario(d.pop("effective"))




        scenario = Scenario(d.pop("scenario"))




        def _parse_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)



                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        until = _parse_until(d.pop("until"))


        scenario_view = cls(
            effective=effective,
            scenario=scenario,
            until=until,
        )


        scenario_view.additional_properties = d
        return scenario_view

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
