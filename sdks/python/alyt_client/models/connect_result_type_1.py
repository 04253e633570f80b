from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.connect_result_type_1_status import ConnectResultType1Status
from typing import cast

if TYPE_CHECKING:
  from ..models.connect_field import ConnectField





T = TypeVar("T", bound="ConnectResultType1")



@_attrs_define
class ConnectResultType1:
    """ The connector needs more input: answer with `POST
    /v1/integrations/challenge` `{ token, input }` within ten minutes.

        Attributes:
            fields (list[ConnectField]):
            prompt (str):
            status (ConnectResultType1Status):
            token (str): One-time; good for one answer.
     """

    fields: list[ConnectField]
    prompt: str
    status: ConnectResultType1Status
    token: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.connect_field import ConnectField # noqa: PLC0415
        fields = []
        for fields_item_data in self.fields:
            fields_item = fields_item_data.to_dict()
            fields.append(fields_item)



        prompt = self.prompt

        status = self.status.value

        token = self.token


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "fields": fields,
            "prompt": prompt,
            "status": status,
            "token": token,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connect_field import ConnectField # noqa: PLC0415
        d = dict(src_dict)
        fields = []
        _fields = d.pop("fields")
        for fields_item_data in (_fields):
            fields_item = ConnectField.from_dict(fields_item_data)



            fields.append(fields_item)


        prompt = d.pop("prompt")

        status = ConnectResultType1Status(d.pop("status"))




        token = d.pop("token")

        connect_result_type_1 = cls(
            fields=fields,
            prompt=prompt,
            status=status,
            token=token,
        )


        connect_result_type_1.additional_properties = d
        return connect_result_type_1

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
