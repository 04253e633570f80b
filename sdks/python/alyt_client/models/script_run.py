from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.script_run_status import ScriptRunStatus
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.script_run_devices import ScriptRunDevices





T = TypeVar("T", bound="ScriptRun")



@_attrs_define
class ScriptRun:
    """ A run of a script: what it plays, on which devices, and how far it got.

        Attributes:
            created_at (datetime.datetime):
            devices (ScriptRunDevices): Each role and the virtual device that plays it.
            duration_ms (int):
            ended_at (datetime.datetime | None): null until it ends.
            id (UUID):
            played (int): Messages published so far (written at most once a second while it
                plays).
            reason (None | str): Why it failed or ended early; null while it plays or when it ended
                DONE.
            script_id (UUID):
            script_name (str):
            seed (int): The seed: a run of the same script with this seed sends the same
                traffic, byte for byte.
            started_at (datetime.datetime | None): When a player took it; null while PENDING.
            status (ScriptRunStatus): Where a run stands.
            total (int): Messages the run publishes in all (answers to commands aside).
            traffic_sha_256 (str): SHA-256 (hex) of the traffic the run plays (every message's offset,
                role, channel and bytes, every connect and disconnect): equal for two
                runs of one script with one seed.
     """

    created_at: datetime.datetime
    devices: ScriptRunDevices
    duration_ms: int
    ended_at: datetime.datetime | None
    id: UUID
    played: int
    reason: None | str
    script_id: UUID
    script_name: str
    seed: int
    started_at: datetime.datetime | None
    status: ScriptRunStatus
    total: int
    traffic_sha_256: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.script_run_devices import ScriptRunDevices # noqa: PLC0415
        created_at = self.created_at.isoformat()

        devices = self.devices.to_dict()

        duration_ms = self.duration_ms

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        id = str(self.id)

        played = self.played

        reason: None | str
        reason = self.reason

        script_id = str(self.script_id)

        script_name = self.script_name

        seed = self.seed

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status.value

        total = self.total

        traffic_sha_256 = self.traffic_sha_256


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "devices": devices,
            "durationMs": duration_ms,
            "endedAt": ended_at,
            "id": id,
            "played": played,
            "reason": reason,
            "scriptId": script_id,
            "scriptName": script_name,
            "seed": seed,
            "startedAt": started_at,
            "status": status,
            "total": total,
            "trafficSha256": traffic_sha_256,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.script_run_devices import ScriptRunDevices # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        devices = ScriptRunDevices.from_dict(d.pop("devices"))




        duration_ms = d.pop("durationMs")

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)



                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("endedAt"))


        id = UUID(d.pop("id"))




        played = d.pop("played")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))


        script_id = UUID(d.pop("scriptId"))




        script_name = d.pop("scriptName")

        seed = d.pop("seed")

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)



                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("startedAt"))


        status = ScriptRunStatus(d.pop("status"))




        total = d.pop("total")

        traffic_sha_256 = d.pop("trafficSha256")

        script_run = cls(
            created_at=created_at,
            devices=devices,
            duration_ms=duration_ms,
            ended_at=ended_at,
            id=id,
            played=played,
            reason=reason,
            script_id=script_id,
            script_name=script_name,
            seed=seed,
            started_at=started_at,
            status=status,
            total=total,
            traffic_sha_256=traffic_sha_256,
        )


        script_run.additional_properties = d
        return script_run

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
