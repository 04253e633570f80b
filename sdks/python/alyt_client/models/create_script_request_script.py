from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="CreateScriptRequestScript")



@_attrs_define
class CreateScriptRequestScript:
    """ `{ name, roles: [{ name, profile }] (1 to 20; profile LIGHT,
    SENSOR, ...), steps: [{ atMs, role, action: scenario|telemetry|event|
    alert|disconnect|reconnect|answerCommands, scenario? (NORMAL, BURST,
    ...), payload? (the channel's payload, as the broker contract's
    examples), status? and delayMs? (answerCommands: the response status
    from then on, 1 to 32 characters, none for no answer, after 0 to
    60000 ms; until the first such step a role answers `ok` at once) }]
    (at most 1000), durationMs (1 to 3600000) }`. The sample scripts
    (`GET /v1/developers/simulator/sample-scripts`) show each action.

     """

    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        
        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        create_script_request_script = cls(
        )


        create_script_request_script.additional_properties = d
        return create_script_request_script

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
