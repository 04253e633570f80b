from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_outcome import StepOutcome
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.run_thing import RunThing





T = TypeVar("T", bound="RunStep")



@_attrs_define
class RunStep:
    """ One step's outcome.

        Attributes:
            at (datetime.datetime):
            detail (None | str): The thing's or room's name, the delay, the mode.
            kind (str): `thing`, `room`, `delay`, `music` or `security`.
            music (None | str): A music step: what it plays (the step's display name).
            outcome (StepOutcome): How one step of a run ended.
            reason (None | str):
            speaker (None | str): A music step: the speaker's name.
            step (int): Its index in `do[]`.
            things (list[RunThing]): Per thing, for thing and room steps.
     """

    at: datetime.datetime
    detail: None | str
    kind: str
    music: None | str
    outcome: StepOutcome
    reason: None | str
    speaker: None | str
    step: int
    things: list[RunThing]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.run_thing import RunThing # noqa: PLC0415
        at = self.at.isoformat()

        detail: None | str
        detail = self.detail

        kind = self.kind

        music: None | str
        music = self.music

        outcome = self.outcome.value

        reason: None | str
        reason = self.reason

        speaker: None | str
        speaker = self.speaker

        step = self.step

        things = []
        for things_item_data in self.things:
            things_item = things_item_data.to_dict()
            things.append(things_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "detail": detail,
            "kind": kind,
            "music": music,
            "outcome": outcome,
            "reason": reason,
            "speaker": speaker,
            "step": step,
            "things": things,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_thing import RunThing # noqa: PLC0415
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        def _parse_detail(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        detail = _parse_detail(d.pop("detail"))


        kind = d.pop("kind")

        def _parse_music(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        music = _parse_music(d.pop("music"))


        outcome = StepOutcome(d.pop("outcome"))




        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))


        def _parse_speaker(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        speaker = _parse_speaker(d.pop("speaker"))


        step = d.pop("step")

        things = []
        _things = d.pop("things")
        for things_item_data in (_things):
            things_item = RunThing.from_dict(things_item_data)



            things.append(things_item)


        run_step = cls(
            at=at,
            detail=detail,
            kind=kind,
            music=music,
            outcome=outcome,
            reason=reason,
            speaker=speaker,
            step=step,
            things=things,
        )


        run_step.additional_properties = d
        return run_step

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
