from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_type_0_kind import StepType0Kind
from typing import cast

if TYPE_CHECKING:
  from ..models.pinned_thing import PinnedThing
  from ..models.thing_command import ThingCommand





T = TypeVar("T", bound="StepType0")



@_attrs_define
class StepType0:
    """ A command to one thing: the thing command envelope, checked against
    the thing's descriptors where the routine is saved.

        Attributes:
            command (ThingCommand): The contract's name for a routine step's thing command: the thing
                command envelope as `POST .../commands` takes it, kept as it was sent (an
                object; a named schema, so generated clients give it one type).
            kind (StepType0Kind):
            thing (PinnedThing): A pinned thing.
     """

    command: ThingCommand
    kind: StepType0Kind
    thing: PinnedThing
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        from ..models.thing_command import ThingCommand # noqa: PLC0415
        command = self.command.to_dict()

        kind = self.kind.value

        thing = self.thing.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "command": command,
            "kind": kind,
            "thing": thing,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        from ..models.thing_command import ThingCommand # noqa: PLC0415
        d = dict(src_dict)
        command = ThingCommand.from_dict(d.pop("command"))




        kind = StepType0Kind(d.pop("kind"))




        thing = PinnedThing.from_dict(d.pop("thing"))




        step_type_0 = cls(
            command=command,
            kind=kind,
            thing=thing,
        )


        step_type_0.additional_properties = d
        return step_type_0

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
