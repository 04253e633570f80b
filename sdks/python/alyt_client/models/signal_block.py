from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.block_reason import BlockReason
from ..models.signal import Signal






T = TypeVar("T", bound="SignalBlock")



@_attrs_define
class SignalBlock:
    """ 
        Attributes:
            signal (Signal): What a detector senses: the device families that detect (motion,
                contact, vibration, a camera's own detection).
            why (BlockReason): Why a signal blocks arming (shown before arming).
     """

    signal: Signal
    why: BlockReason
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        signal = self.signal.value

        why = self.why.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "signal": signal,
            "why": why,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        signal = Signal(d.pop("signal"))




        why = BlockReason(d.pop("why"))




        signal_block = cls(
            signal=signal,
            why=why,
        )


        signal_block.additional_properties = d
        return signal_block

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
