from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.output import Output
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="OutputView")



@_attrs_define
class OutputView:
    """ An output the last alarm drives or drove.

        Attributes:
            attempts (int): Restoration attempts so far.
            error (None | str): Why it was abandoned, the last failure, or (after `restored` with
                parts in `unrestored`) why the thing would not take them back.
            name (str):
            output (Output): An output home security may drive (its native state saved first).
            stage (str): `saved` (its native state saved, nothing sent), `touched` (changed,
                or maybe changed: to restore), `restored`, `abandoned` (left alone,
                or it left the home).
            thing_id (UUID):
            unrestored (list[str]): After `restored`: the parts that could not be put back
                (`capability.key`; an unsupported source is never called restored).
     """

    attempts: int
    error: None | str
    name: str
    output: Output
    stage: str
    thing_id: UUID
    unrestored: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        error: None | str
        error = self.error

        name = self.name

        output = self.output.value

        stage = self.stage

        thing_id = str(self.thing_id)

        unrestored = self.unrestored




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts": attempts,
            "error": error,
            "name": name,
            "output": output,
            "stage": stage,
            "thingId": thing_id,
            "unrestored": unrestored,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


        name = d.pop("name")

        output = Output(d.pop("output"))




        stage = d.pop("stage")

        thing_id = UUID(d.pop("thingId"))




        unrestored = cast(list[str], d.pop("unrestored"))


        output_view = cls(
            attempts=attempts,
            error=error,
            name=name,
            output=output,
            stage=stage,
            thing_id=thing_id,
            unrestored=unrestored,
        )


        output_view.additional_properties = d
        return output_view

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
