from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.scenario import Scenario
from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="SetScenarioRequest")



@_attrs_define
class SetScenarioRequest:
    """ The body of `POST /v1/developers/simulator/devices/{deviceId}/scenario`.

        Attributes:
            scenario (Scenario): What a virtual device does besides its normal reporting.
            tenant_id (UUID):
            seconds (int | Unset): Revert to NORMAL after this many seconds (1 to 86400); absent: until
                changed.
     """

    scenario: Scenario
    tenant_id: UUID
    seconds: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        scenario = self.scenario.value

        tenant_id = str(self.tenant_id)

        seconds = self.seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "scenario": scenario,
            "tenantId": tenant_id,
        })
        if seconds is not UNSET:
            field_dict["seconds"] = seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        scenario = Scenario(d.pop("scenario"))




        tenant_id = UUID(d.pop("tenantId"))




        seconds = d.pop("seconds", UNSET)

        set_scenario_request = cls(
            scenario=scenario,
            tenant_id=tenant_id,
            seconds=seconds,
        )

        return set_scenario_request

