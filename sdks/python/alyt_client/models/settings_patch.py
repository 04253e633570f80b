from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.deterrent import Deterrent
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.location import Location





T = TypeVar("T", bound="SettingsPatch")



@_attrs_define
class SettingsPatch:
    """ A change of settings: any of the fields.

        Attributes:
            tenant_id (str):
            deterrent (Deterrent | None | Unset):
            entry_delay_seconds (int | None | Unset):
            exit_delay_seconds (int | None | Unset):
            hub_device_id (None | str | Unset): The hub that runs the home's protection (a HUB device of this home;
                null: the platform's own engine).
            location (Location | None | Unset):
            night_light_rooms (list[str] | None | Unset):
            sleeping_rooms (list[str] | None | Unset):
            speaker_alarm_rooms (list[str] | None | Unset):
     """

    tenant_id: str
    deterrent: Deterrent | None | Unset = UNSET
    entry_delay_seconds: int | None | Unset = UNSET
    exit_delay_seconds: int | None | Unset = UNSET
    hub_device_id: None | str | Unset = UNSET
    location: Location | None | Unset = UNSET
    night_light_rooms: list[str] | None | Unset = UNSET
    sleeping_rooms: list[str] | None | Unset = UNSET
    speaker_alarm_rooms: list[str] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.location import Location # noqa: PLC0415
        tenant_id = self.tenant_id

        deterrent: None | str | Unset
        if isinstance(self.deterrent, Unset):
            deterrent = UNSET
        elif isinstance(self.deterrent, Deterrent):
            deterrent = self.deterrent.value
        else:
            deterrent = self.deterrent

        entry_delay_seconds: int | None | Unset
        if isinstance(self.entry_delay_seconds, Unset):
            entry_delay_seconds = UNSET
        else:
            entry_delay_seconds = self.entry_delay_seconds

        exit_delay_seconds: int | None | Unset
        if isinstance(self.exit_delay_seconds, Unset):
            exit_delay_seconds = UNSET
        else:
            exit_delay_seconds = self.exit_delay_seconds

        hub_device_id: None | str | Unset
        if isinstance(self.hub_device_id, Unset):
            hub_device_id = UNSET
        else:
            hub_device_id = self.hub_device_id

        location: dict[str, Any] | None | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        elif isinstance(self.location, Location):
            location = self.location.to_dict()
        else:
            location = self.location

        night_light_rooms: list[str] | None | Unset
        if isinstance(self.night_light_rooms, Unset):
            night_light_rooms = UNSET
        elif isinstance(self.night_light_rooms, list):
            night_light_rooms = self.night_light_rooms


        else:
            night_light_rooms = self.night_light_rooms

        sleeping_rooms: list[str] | None | Unset
        if isinstance(self.sleeping_rooms, Unset):
            sleeping_rooms = UNSET
        elif isinstance(self.sleeping_rooms, list):
            sleeping_rooms = self.sleeping_rooms


        else:
            sleeping_rooms = self.sleeping_rooms

        speaker_alarm_rooms: list[str] | None | Unset
        if isinstance(self.speaker_alarm_rooms, Unset):
            speaker_alarm_rooms = UNSET
        elif isinstance(self.speaker_alarm_rooms, list):
            speaker_alarm_rooms = self.speaker_alarm_rooms


        else:
            speaker_alarm_rooms = self.speaker_alarm_rooms


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tenantId": tenant_id,
        })
        if deterrent is not UNSET:
            field_dict["deterrent"] = deterrent
        if entry_delay_seconds is not UNSET:
            field_dict["entryDelaySeconds"] = entry_delay_seconds
        if exit_delay_seconds is not UNSET:
            field_dict["exitDelaySeconds"] = exit_delay_seconds
        if hub_device_id is not UNSET:
            field_dict["hubDeviceId"] = hub_device_id
        if location is not UNSET:
            field_dict["location"] = location
        if night_light_rooms is not UNSET:
            field_dict["nightLightRooms"] = night_light_rooms
        if sleeping_rooms is not UNSET:
            field_dict["sleepingRooms"] = sleeping_rooms
        if speaker_alarm_rooms is not UNSET:
            field_dict["speakerAlarmRooms"] = speaker_alarm_rooms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.location import Location # noqa: PLC0415
        d = dict(src_dict)
        tenant_id = d.pop("tenantId")

        def _parse_deterrent(data: object) -> Deterrent | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deterrent_type_1 = Deterrent(data)



                return deterrent_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Deterrent | None | Unset, data)

        deterrent = _parse_deterrent(d.pop("deterrent", UNSET))


        def _parse_entry_delay_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        entry_delay_seconds = _parse_entry_delay_seconds(d.pop("entryDelaySeconds", UNSET))


        def _parse_exit_delay_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        exit_delay_seconds = _parse_exit_delay_seconds(d.pop("exitDelaySeconds", UNSET))


        def _parse_hub_device_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hub_device_id = _parse_hub_device_id(d.pop("hubDeviceId", UNSET))


        def _parse_location(data: object) -> Location | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                location_type_1 = Location.from_dict(data)



                return location_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Location | None | Unset, data)

        location = _parse_location(d.pop("location", UNSET))


        def _parse_night_light_rooms(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                night_light_rooms_type_0 = cast(list[str], data)

                return night_light_rooms_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        night_light_rooms = _parse_night_light_rooms(d.pop("nightLightRooms", UNSET))


        def _parse_sleeping_rooms(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                sleeping_rooms_type_0 = cast(list[str], data)

                return sleeping_rooms_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        sleeping_rooms = _parse_sleeping_rooms(d.pop("sleepingRooms", UNSET))


        def _parse_speaker_alarm_rooms(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                speaker_alarm_rooms_type_0 = cast(list[str], data)

                return speaker_alarm_rooms_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        speaker_alarm_rooms = _parse_speaker_alarm_rooms(d.pop("speakerAlarmRooms", UNSET))


        settings_patch = cls(
            tenant_id=tenant_id,
            deterrent=deterrent,
            entry_delay_seconds=entry_delay_seconds,
            exit_delay_seconds=exit_delay_seconds,
            hub_device_id=hub_device_id,
            location=location,
            night_light_rooms=night_light_rooms,
            sleeping_rooms=sleeping_rooms,
            speaker_alarm_rooms=speaker_alarm_rooms,
        )

        return settings_patch

