from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.music_account import MusicAccount
  from ..models.music_speaker import MusicSpeaker





T = TypeVar("T", bound="RoutineMusic")



@_attrs_define
class RoutineMusic:
    """ What a home's routines can play.

        Attributes:
            accounts (list[MusicAccount]):
            speakers (list[MusicSpeaker]):
     """

    accounts: list[MusicAccount]
    speakers: list[MusicSpeaker]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.music_account import MusicAccount # noqa: PLC0415
        from ..models.music_speaker import MusicSpeaker # noqa: PLC0415
        accounts = []
        for accounts_item_data in self.accounts:
            accounts_item = accounts_item_data.to_dict()
            accounts.append(accounts_item)



        speakers = []
        for speakers_item_data in self.speakers:
            speakers_item = speakers_item_data.to_dict()
            speakers.append(speakers_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "accounts": accounts,
            "speakers": speakers,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.music_account import MusicAccount # noqa: PLC0415
        from ..models.music_speaker import MusicSpeaker # noqa: PLC0415
        d = dict(src_dict)
        accounts = []
        _accounts = d.pop("accounts")
        for accounts_item_data in (_accounts):
            accounts_item = MusicAccount.from_dict(accounts_item_data)



            accounts.append(accounts_item)


        speakers = []
        _speakers = d.pop("speakers")
        for speakers_item_data in (_speakers):
            speakers_item = MusicSpeaker.from_dict(speakers_item_data)



            speakers.append(speakers_item)


        routine_music = cls(
            accounts=accounts,
            speakers=speakers,
        )


        routine_music.additional_properties = d
        return routine_music

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
