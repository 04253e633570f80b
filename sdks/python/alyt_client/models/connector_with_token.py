from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.connector import Connector





T = TypeVar("T", bound="ConnectorWithToken")



@_attrs_define
class ConnectorWithToken:
    """ The create answer: the connector and its runtime token, shown this once.

        Attributes:
            connector (Connector): A connector as its developer sees it; never its runtime token.
            runtime_token (str): `svc_rt_…`: the platform sends it as `Authorization: Bearer <token>`
                on every call to the connector server, which must refuse calls
                without it. Shown once. It is kept as issued (not as a hash), like a
                webhook signing secret, because the platform must present it; it is
                never logged nor shown again. It is not an App secret and grants no
                access to the API.
     """

    connector: Connector
    runtime_token: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.connector import Connector # noqa: PLC0415
        connector = self.connector.to_dict()

        runtime_token = self.runtime_token


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "connector": connector,
            "runtimeToken": runtime_token,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connector import Connector # noqa: PLC0415
        d = dict(src_dict)
        connector = Connector.from_dict(d.pop("connector"))




        runtime_token = d.pop("runtimeToken")

        connector_with_token = cls(
            connector=connector,
            runtime_token=runtime_token,
        )


        connector_with_token.additional_properties = d
        return connector_with_token

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
