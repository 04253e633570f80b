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
  from ..models.simulation_script_script import SimulationScriptScript





T = TypeVar("T", bound="SimulationScript")



@_attrs_define
class SimulationScript:
    """ A stored script.

        Attributes:
            created_at (datetime.datetime):
            id (UUID):
            name (str):
            script (SimulationScriptScript): The script as written (see `CreateScriptRequest.script`).
     """

    created_at: datetime.datetime
    id: UUID
    name: str
    script: SimulationScriptScript
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.simulation_script_script import SimulationScriptScript # noqa: PLC0415
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        script = self.script.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "id": id,
            "name": name,
            "script": script,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.simulation_script_script import SimulationScriptScript # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        id = UUID(d.pop("id"))




        name = d.pop("name")

        script = SimulationScriptScript.from_dict(d.pop("script"))




        simulation_script = cls(
            created_at=created_at,
            id=id,
            name=name,
            script=script,
        )


        simulation_script.additional_properties = d
        return simulation_script

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
