from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.thing import Thing





T = TypeVar("T", bound="EndpointCommandResult")



@_attrs_define
class EndpointCommandResult:
    """ The answer to an endpoint command.

        Attributes:
            status (str): Always `applied`: refusals and failures are problems (422, 502).
            thing (Thing): The rendered view of a device or endpoint (spec: Resources > Thing).
     """

    status: str
    thing: Thing
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.thing import Thing # noqa: PLC0415
        status = self.status

        thing = self.thing.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "status": status,
            "thing": thing,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.thing import Thing # noqa: PLC0415
        d = dict(src_dict)
        status = d.pop("status")

        thing = Thing.from_dict(d.pop("thing"))




        endpoint_command_result = cls(
            status=status,
            thing=thing,
        )


        endpoint_command_result.additional_properties = d
        return endpoint_command_result

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
