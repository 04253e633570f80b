from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.source_mode import SourceMode
from ..models.speaker_system import SpeakerSystem
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.music_choice import MusicChoice





T = TypeVar("T", bound="MusicSpeaker")



@_attrs_define
class MusicSpeaker:
    """ A speaker a music step can use.

        Attributes:
            favourites (list[MusicChoice]): Favourites, playlists and radio saved on its speaker system: their
                `uri` is what a music step plays (empty without the favourites
                mode).
            favourites_error (None | str): Why the favourites could not be read now (null: they were).
            id (UUID):
            integration_id (UUID):
            name (str):
            room_id (UUID):
            source_modes (list[SourceMode]):
            system (SpeakerSystem): Which kind of speaker system a speaker belongs to.
     """

    favourites: list[MusicChoice]
    favourites_error: None | str
    id: UUID
    integration_id: UUID
    name: str
    room_id: UUID
    source_modes: list[SourceMode]
    system: SpeakerSystem
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.music_choice import MusicChoice # noqa: PLC0415
        favourites = []
        for favourites_item_data in self.favourites:
            favourites_item = favourites_item_data.to_dict()
            favourites.append(favourites_item)



        favourites_error: None | str
        favourites_error = self.favourites_error

        id = str(self.id)

        integration_id = str(self.integration_id)

        name = self.name

        room_id = str(self.room_id)

        source_modes = []
        for source_modes_item_data in self.source_modes:
            source_modes_item = source_modes_item_data.value
            source_modes.append(source_modes_item)



        system = self.system.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "favourites": favourites,
            "favouritesError": favourites_error,
            "id": id,
            "integrationId": integration_id,
            "name": name,
            "roomId": room_id,
            "sourceModes": source_modes,
            "system": system,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.music_choice import MusicChoice # noqa: PLC0415
        d = dict(src_dict)
        favourites = []
        _favourites = d.pop("favourites")
        for favourites_item_data in (_favourites):
            favourites_item = MusicChoice.from_dict(favourites_item_data)



            favourites.append(favourites_item)


        def _parse_favourites_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        favourites_error = _parse_favourites_error(d.pop("favouritesError"))


        id = UUID(d.pop("id"))




        integration_id = UUID(d.pop("integrationId"))




        name = d.pop("name")

        room_id = UUID(d.pop("roomId"))




        source_modes = []
        _source_modes = d.pop("sourceModes")
        for source_modes_item_data in (_source_modes):
            source_modes_item = SourceMode(source_modes_item_data)



            source_modes.append(source_modes_item)


        system = SpeakerSystem(d.pop("system"))




        music_speaker = cls(
            favourites=favourites,
            favourites_error=favourites_error,
            id=id,
            integration_id=integration_id,
            name=name,
            room_id=room_id,
            source_modes=source_modes,
            system=system,
        )


        music_speaker.additional_properties = d
        return music_speaker

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
