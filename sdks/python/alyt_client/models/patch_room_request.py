from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.action_ref import ActionRef





T = TypeVar("T", bound="PatchRoomRequest")



@_attrs_define
class PatchRoomRequest:
    """ The body of `PATCH /v1/rooms/{roomId}`: every field optional; a field
    left out keeps its value.

        Attributes:
            chosen_actions (list[ActionRef] | None | Unset): Up to 8 tile actions in order of preference (the first two the
                room
                serves are primary); null means the defaults.
            icon (None | str | Unset): A token of the room-icon set; null derives it from the name again.
            listening (bool | Unset): Whether voice-capable things listen (control; the others are
                configuration).
            name (str | Unset):
            quiet_hours_end (int | None | Unset):
            quiet_hours_start (int | None | Unset): Whole hour 0-23 (the home's time zone), with `quietHoursEnd`.
     """

    chosen_actions: list[ActionRef] | None | Unset = UNSET
    icon: None | str | Unset = UNSET
    listening: bool | Unset = UNSET
    name: str | Unset = UNSET
    quiet_hours_end: int | None | Unset = UNSET
    quiet_hours_start: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.action_ref import ActionRef # noqa: PLC0415
        chosen_actions: list[dict[str, Any]] | None | Unset
        if isinstance(self.chosen_actions, Unset):
            chosen_actions = UNSET
        elif isinstance(self.chosen_actions, list):
            chosen_actions = []
            for chosen_actions_type_0_item_data in self.chosen_actions:
                chosen_actions_type_0_item = chosen_actions_type_0_item_data.to_dict()
                chosen_actions.append(chosen_actions_type_0_item)


        else:
            chosen_actions = self.chosen_actions

        icon: None | str | Unset
        if isinstance(self.icon, Unset):
            icon = UNSET
        else:
            icon = self.icon

        listening = self.listening

        name = self.name

        quiet_hours_end: int | None | Unset
        if isinstance(self.quiet_hours_end, Unset):
            quiet_hours_end = UNSET
        else:
            quiet_hours_end = self.quiet_hours_end

        quiet_hours_start: int | None | Unset
        if isinstance(self.quiet_hours_start, Unset):
            quiet_hours_start = UNSET
        else:
            quiet_hours_start = self.quiet_hours_start


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if chosen_actions is not UNSET:
            field_dict["chosenActions"] = chosen_actions
        if icon is not UNSET:
            field_dict["icon"] = icon
        if listening is not UNSET:
            field_dict["listening"] = listening
        if name is not UNSET:
            field_dict["name"] = name
        if quiet_hours_end is not UNSET:
            field_dict["quietHoursEnd"] = quiet_hours_end
        if quiet_hours_start is not UNSET:
            field_dict["quietHoursStart"] = quiet_hours_start

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_ref import ActionRef # noqa: PLC0415
        d = dict(src_dict)
        def _parse_chosen_actions(data: object) -> list[ActionRef] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                chosen_actions_type_0 = []
                _chosen_actions_type_0 = data
                for chosen_actions_type_0_item_data in (_chosen_actions_type_0):
                    chosen_actions_type_0_item = ActionRef.from_dict(chosen_actions_type_0_item_data)



                    chosen_actions_type_0.append(chosen_actions_type_0_item)

                return chosen_actions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ActionRef] | None | Unset, data)

        chosen_actions = _parse_chosen_actions(d.pop("chosenActions", UNSET))


        def _parse_icon(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        icon = _parse_icon(d.pop("icon", UNSET))


        listening = d.pop("listening", UNSET)

        name = d.pop("name", UNSET)

        def _parse_quiet_hours_end(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        quiet_hours_end = _parse_quiet_hours_end(d.pop("quietHoursEnd", UNSET))


        def _parse_quiet_hours_start(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        quiet_hours_start = _parse_quiet_hours_start(d.pop("quietHoursStart", UNSET))


        patch_room_request = cls(
            chosen_actions=chosen_actions,
            icon=icon,
            listening=listening,
            name=name,
            quiet_hours_end=quiet_hours_end,
            quiet_hours_start=quiet_hours_start,
        )

        return patch_room_request

