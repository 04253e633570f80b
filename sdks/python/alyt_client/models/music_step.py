from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from uuid import UUID






T = TypeVar("T", bound="MusicStep")



@_attrs_define
class MusicStep:
    """ The music step: play a uri on a speaker, optionally at a volume.

        Attributes:
            name (str): Display only; grants no access.
            speaker_id (UUID):
            uri (str):
            volume (int | Unset): 0-100; absent leaves the volume as it is.
     """

    name: str
    speaker_id: UUID
    uri: str
    volume: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        speaker_id = str(self.speaker_id)

        uri = self.uri

        volume = self.volume


        field_dict: dict[str, Any] = {}

        field_dict.update({
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
        name = d.pop("name")

        speaker_id = UUID(d.pop("speakerId"))




        uri = d.pop("uri")

        volume = d.pop("volume", UNSET)

        music_step = cls(
            name=name,
            speaker_id=speaker_id,
            uri=uri,
            volume=volume,
        )

        return music_step

