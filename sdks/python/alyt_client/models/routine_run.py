from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.run_state import RunState
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.run_start_type_0 import RunStartType0
  from ..models.run_start_type_1 import RunStartType1
  from ..models.run_step import RunStep





T = TypeVar("T", bound="RoutineRun")



@_attrs_define
class RoutineRun:
    """ One run of a routine.

        Attributes:
            cause (RunStartType0 | RunStartType1): What started a run: `{ kind: 'manual', by }` (by: the person, null for a
                key) or `{ kind: 'schedule', trigger, localDate }`.
            finished_at (datetime.datetime | None):
            id (UUID):
            name (str): The routine's name when it ran.
            property_id (UUID):
            routine_id (UUID):
            started_at (datetime.datetime):
            state (RunState): Where a run stands.
            step_count (int): Steps in the run.
            steps (list[RunStep]): The outcomes so far, in step order.
     """

    cause: RunStartType0 | RunStartType1
    finished_at: datetime.datetime | None
    id: UUID
    name: str
    property_id: UUID
    routine_id: UUID
    started_at: datetime.datetime
    state: RunState
    step_count: int
    steps: list[RunStep]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.run_start_type_0 import RunStartType0 # noqa: PLC0415
        from ..models.run_start_type_1 import RunStartType1 # noqa: PLC0415
        from ..models.run_step import RunStep # noqa: PLC0415
        cause: dict[str, Any]
        if isinstance(self.cause, RunStartType0):
            cause = self.cause.to_dict()
        else:
            cause = self.cause.to_dict()


        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = str(self.id)

        name = self.name

        property_id = str(self.property_id)

        routine_id = str(self.routine_id)

        started_at = self.started_at.isoformat()

        state = self.state.value

        step_count = self.step_count

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cause": cause,
            "finishedAt": finished_at,
            "id": id,
            "name": name,
            "propertyId": property_id,
            "routineId": routine_id,
            "startedAt": started_at,
            "state": state,
            "stepCount": step_count,
            "steps": steps,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_start_type_0 import RunStartType0 # noqa: PLC0415
        from ..models.run_start_type_1 import RunStartType1 # noqa: PLC0415
        from ..models.run_step import RunStep # noqa: PLC0415
        d = dict(src_dict)
        def _parse_cause(data: object) -> RunStartType0 | RunStartType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_run_start_type_0 = RunStartType0.from_dict(data)



                return componentsschemas_run_start_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_run_start_type_1 = RunStartType1.from_dict(data)



            return componentsschemas_run_start_type_1

        cause = _parse_cause(d.pop("cause"))


        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)



                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finishedAt"))


        id = UUID(d.pop("id"))




        name = d.pop("name")

        property_id = UUID(d.pop("propertyId"))




        routine_id = UUID(d.pop("routineId"))




        started_at = datetime.datetime.fromisoformat(d.pop("startedAt"))




        state = RunState(d.pop("state"))




        step_count = d.pop("stepCount")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            steps_item = RunStep.from_dict(steps_item_data)



            steps.append(steps_item)


        routine_run = cls(
            cause=cause,
            finished_at=finished_at,
            id=id,
            name=name,
            property_id=property_id,
            routine_id=routine_id,
            started_at=started_at,
            state=state,
            step_count=step_count,
            steps=steps,
        )


        routine_run.additional_properties = d
        return routine_run

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
