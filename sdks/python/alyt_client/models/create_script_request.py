from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.create_script_request_script import CreateScriptRequestScript





T = TypeVar("T", bound="CreateScriptRequest")



@_attrs_define
class CreateScriptRequest:
    """ The body of `POST /v1/developers/simulator/scripts`.

        Attributes:
            script (CreateScriptRequestScript): `{ name, roles: [{ name, profile }] (1 to 20; profile LIGHT,
                SENSOR, ...), steps: [{ atMs, role, action: scenario|telemetry|event|
                alert|disconnect|reconnect|answerCommands, scenario? (NORMAL, BURST,
                ...), payload? (the channel's payload, as the broker contract's
                examples), status? and delayMs? (answerCommands: the response status
                from then on, 1 to 32 characters, none for no answer, after 0 to
                60000 ms; until the first such step a role answers `ok` at once) }]
                (at most 1000), durationMs (1 to 3600000) }`. The sample scripts
                (`GET /v1/developers/simulator/sample-scripts`) show each action.
            tenant_id (UUID):
     """

    script: CreateScriptRequestScript
    tenant_id: UUID





    def to_dict(self) -> dict[str, Any]:
        from ..models.create_script_request_script import CreateScriptRequestScript # noqa: PLC0415
        script = self.script.to_dict()

        tenant_id = str(self.tenant_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "script": script,
            "tenantId": tenant_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_script_request_script import CreateScriptRequestScript # noqa: PLC0415
        d = dict(src_dict)
        script = CreateScriptRequestScript.from_dict(d.pop("script"))




        tenant_id = UUID(d.pop("tenantId"))




        create_script_request = cls(
            script=script,
            tenant_id=tenant_id,
        )

        return create_script_request

