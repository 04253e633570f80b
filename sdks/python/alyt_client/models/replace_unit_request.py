from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="ReplaceUnitRequest")



@_attrs_define
class ReplaceUnitRequest:
    """ The body of `POST /v1/devices/{deviceId}/units`: the new board.

        Attributes:
            serial (str): The burned-in serial of the new board: 1-64 printable ASCII characters.
            firmware (str | Unset):
            mac_address (str | Unset): Six hex octets (`AA:BB:CC:DD:EE:FF`).
            model (str | Unset):
            reason (str | Unset): Why the old board was removed (default `warranty-replacement`).
     """

    serial: str
    firmware: str | Unset = UNSET
    mac_address: str | Unset = UNSET
    model: str | Unset = UNSET
    reason: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        serial = self.serial

        firmware = self.firmware

        mac_address = self.mac_address

        model = self.model

        reason = self.reason


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "serial": serial,
        })
        if firmware is not UNSET:
            field_dict["firmware"] = firmware
        if mac_address is not UNSET:
            field_dict["macAddress"] = mac_address
        if model is not UNSET:
            field_dict["model"] = model
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        serial = d.pop("serial")

        firmware = d.pop("firmware", UNSET)

        mac_address = d.pop("macAddress", UNSET)

        model = d.pop("model", UNSET)

        reason = d.pop("reason", UNSET)

        replace_unit_request = cls(
            serial=serial,
            firmware=firmware,
            mac_address=mac_address,
            model=model,
            reason=reason,
        )

        return replace_unit_request

