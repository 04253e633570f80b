from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_type_3_kind import StepType3Kind
from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="StepType3")



@_attrs_define
class StepType3:
    """ The music step: play a uri on a speaker, optionally at a volume.

        Attributes:
            kind (StepType3Kind):
            name (str): Display only; grants no access.
            speaker_id (UUID):
            uri (str):
            volume (int | Unset): 0-100; absent leaves the volume as it is.
     """

    kind: StepType3Kind
    name: str
    speaker_id: UUID
    uri: str
    volume: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        name = self.name

        speaker_id = str(self.speaker_id)

        uri = self.uri

        volume = self.volume


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "kind": kind,
            "name": name,
            "speakerId": speaker_id,
            "uri": uri,
        })
        if volume is not UNSET:
            field_dict["volume"] = volume

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = StepType3Kind(d.pop("kind"))




        name = d.pop("name")

        speaker_id = UUID(d.pop("speakerId"))




        uri = d.pop("uri")

        volume = d.pop("volume", UNSET)

        step_type_3 = cls(
            kind=kind,
            name=name,
            speaker_id=speaker_id,
            uri=uri,
            volume=volume,
        )


        step_type_3.additional_properties = d
        return step_type_3

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
