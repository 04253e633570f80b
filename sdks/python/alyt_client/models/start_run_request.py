from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.start_run_request_devices import StartRunRequestDevices





T = TypeVar("T", bound="StartRunRequest")



@_attrs_define
class StartRunRequest:
    """ The body of `POST /v1/developers/simulator/runs`.

        Attributes:
            devices (StartRunRequestDevices): Each role of the script and the virtual device of its profile that
                plays it (neither detached nor in another run). The devices leave
                the simulator for the run and come back at its end.
            script_id (str): A script stored in the sandbox.
            tenant_id (UUID):
            seed (int | None | Unset): 0 to 2^53 - 1; absent: a random seed, named in the answer.
     """

    devices: StartRunRequestDevices
    script_id: str
    tenant_id: UUID
    seed: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.start_run_request_devices import StartRunRequestDevices # noqa: PLC0415
        devices = self.devices.to_dict()

        script_id = self.script_id

        tenant_id = str(self.tenant_id)

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devices": devices,
            "scriptId": script_id,
            "tenantId": tenant_id,
        })
        if seed is not UNSET:
            field_dict["seed"] = seed

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.start_run_request_devices import StartRunRequestDevices # noqa: PLC0415
        d = dict(src_dict)
        devices = StartRunRequestDevices.from_dict(d.pop("devices"))




        script_id = d.pop("scriptId")

        tenant_id = UUID(d.pop("tenantId"))




        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))


        start_run_request = cls(
            devices=devices,
            script_id=script_id,
            tenant_id=tenant_id,
            seed=seed,
        )

        return start_run_request

