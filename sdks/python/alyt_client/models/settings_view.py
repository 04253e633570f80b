from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.deterrent import Deterrent
from typing import cast

if TYPE_CHECKING:
  from ..models.location import Location





T = TypeVar("T", bound="SettingsView")



@_attrs_define
class SettingsView:
    """ The household's settings.

        Attributes:
            deterrent (Deterrent): The deterrent recordings a speaker alarm can play (fixed recordings,
                never the household's own audio).
            entry_delay_seconds (int): 0-300.
            exit_delay_seconds (int): 0-300.
            hub_device_id (None | str): The hub that runs the home's protection (null: the platform).
            location (Location | None):
            night_light_rooms (list[str]):
            sleeping_rooms (list[str]):
            speaker_alarm_rooms (list[str]):
     """

    deterrent: Deterrent
    entry_delay_seconds: int
    exit_delay_seconds: int
    hub_device_id: None | str
    location: Location | None
    night_light_rooms: list[str]
    sleeping_rooms: list[str]
    speaker_alarm_rooms: list[str]





    def to_dict(self) -> dict[str, Any]:
        from ..models.location import Location # noqa: PLC0415
        deterrent = self.deterrent.value

        entry_delay_seconds = self.entry_delay_seconds

        exit_delay_seconds = self.exit_delay_seconds

        hub_device_id: None | str
        hub_device_id = self.hub_device_id

        location: dict[str, Any] | None
        if isinstance(self.location, Location):
            location = self.location.to_dict()
        else:
            location = self.location

        night_light_rooms = self.night_light_rooms



        sleeping_rooms = self.sleeping_rooms



        speaker_alarm_rooms = self.speaker_alarm_rooms




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deterrent": deterrent,
            "entryDelaySeconds": entry_delay_seconds,
            "exitDelaySeconds": exit_delay_seconds,
            "hubDeviceId": hub_device_id,
            "location": location,
            "nightLightRooms": night_light_rooms,
            "sleepingRooms": sleeping_rooms,
            "speakerAlarmRooms": speaker_alarm_rooms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.location import Location # noqa: PLC0415
        d = dict(src_dict)
        deterrent = Deterrent(d.pop("deterrent"))




        entry_delay_seconds = d.pop("entryDelaySeconds")

        exit_delay_seconds = d.pop("exitDelaySeconds")

        def _parse_hub_device_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        hub_device_id = _parse_hub_device_id(d.pop("hubDeviceId"))


        def _parse_location(data: object) -> Location | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                location_type_1 = Location.from_dict(data)



                return location_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Location | None, data)

        location = _parse_location(d.pop("location"))


        night_light_rooms = cast(list[str], d.pop("nightLightRooms"))


        sleeping_rooms = cast(list[str], d.pop("sleepingRooms"))


        speaker_alarm_rooms = cast(list[str], d.pop("speakerAlarmRooms"))


        settings_view = cls(
            deterrent=deterrent,
            entry_delay_seconds=entry_delay_seconds,
            exit_delay_seconds=exit_delay_seconds,
            hub_device_id=hub_device_id,
            location=location,
            night_light_rooms=night_light_rooms,
            sleeping_rooms=sleeping_rooms,
            speaker_alarm_rooms=speaker_alarm_rooms,
        )

        return settings_view

