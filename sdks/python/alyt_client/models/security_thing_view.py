from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.output import Output
from ..models.selection import Selection
from ..models.signal import Signal
from typing import cast

if TYPE_CHECKING:
  from ..models.pinned_thing import PinnedThing
  from ..models.signal_block import SignalBlock





T = TypeVar("T", bound="SecurityThingView")



@_attrs_define
class SecurityThingView:
    """ A thing as home security sees it.

        Attributes:
            camera (bool):
            enrolled (list[Signal]): Signals enrolled under the selection.
            keypad (bool): A lock with an external keypad (prompts to arm, disarms with a
                verified code).
            lock (bool):
            name (str):
            not_ready (list[SignalBlock]): Signals of the enrolled ones that are not ready now, and why.
            outputs (list[Output]):
            room_id (None | str):
            selection (Selection): A household's choice for one thing.
            signals (list[Signal]): Detection signals it offers (by capabilities and features).
            thing (PinnedThing): A pinned thing.
     """

    camera: bool
    enrolled: list[Signal]
    keypad: bool
    lock: bool
    name: str
    not_ready: list[SignalBlock]
    outputs: list[Output]
    room_id: None | str
    selection: Selection
    signals: list[Signal]
    thing: PinnedThing
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        from ..models.signal_block import SignalBlock # noqa: PLC0415
        camera = self.camera

        enrolled = []
        for enrolled_item_data in self.enrolled:
            enrolled_item = enrolled_item_data.value
            enrolled.append(enrolled_item)



        keypad = self.keypad

        lock = self.lock

        name = self.name

        not_ready = []
        for not_ready_item_data in self.not_ready:
            not_ready_item = not_ready_item_data.to_dict()
            not_ready.append(not_ready_item)



        outputs = []
        for outputs_item_data in self.outputs:
            outputs_item = outputs_item_data.value
            outputs.append(outputs_item)



        room_id: None | str
        room_id = self.room_id

        selection = self.selection.value

        signals = []
        for signals_item_data in self.signals:
            signals_item = signals_item_data.value
            signals.append(signals_item)



        thing = self.thing.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "camera": camera,
            "enrolled": enrolled,
            "keypad": keypad,
            "lock": lock,
            "name": name,
            "notReady": not_ready,
            "outputs": outputs,
            "roomId": room_id,
            "selection": selection,
            "signals": signals,
            "thing": thing,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        from ..models.signal_block import SignalBlock # noqa: PLC0415
        d = dict(src_dict)
        camera = d.pop("camera")

        enrolled = []
        _enrolled = d.pop("enrolled")
        for enrolled_item_data in (_enrolled):
            enrolled_item = Signal(enrolled_item_data)



            enrolled.append(enrolled_item)


        keypad = d.pop("keypad")

        lock = d.pop("lock")

        name = d.pop("name")

        not_ready = []
        _not_ready = d.pop("notReady")
        for not_ready_item_data in (_not_ready):
            not_ready_item = SignalBlock.from_dict(not_ready_item_data)



            not_ready.append(not_ready_item)


        outputs = []
        _outputs = d.pop("outputs")
        for outputs_item_data in (_outputs):
            outputs_item = Output(outputs_item_data)



            outputs.append(outputs_item)


        def _parse_room_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        room_id = _parse_room_id(d.pop("roomId"))


        selection = Selection(d.pop("selection"))




        signals = []
        _signals = d.pop("signals")
        for signals_item_data in (_signals):
            signals_item = Signal(signals_item_data)



            signals.append(signals_item)


        thing = PinnedThing.from_dict(d.pop("thing"))




        security_thing_view = cls(
            camera=camera,
            enrolled=enrolled,
            keypad=keypad,
            lock=lock,
            name=name,
            not_ready=not_ready,
            outputs=outputs,
            room_id=room_id,
            selection=selection,
            signals=signals,
            thing=thing,
        )


        security_thing_view.additional_properties = d
        return security_thing_view

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
