from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.connection_examples import ConnectionExamples





T = TypeVar("T", bound="Connection")



@_attrs_define
class Connection:
    """ What a device needs besides its credential.

        Attributes:
            client_id (str): The MQTT client id the device must use (one session per device: a
                second connection with it takes the session over).
            examples (ConnectionExamples):
            host (str): The broker's host name or address.
            port (int):
            protocol (str): `mqtts` (TLS, IoT Core with the device certificate) or `mqtt` (the
                local platform's broker, username and password).
     """

    client_id: str
    examples: ConnectionExamples
    host: str
    port: int
    protocol: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.connection_examples import ConnectionExamples # noqa: PLC0415
        client_id = self.client_id

        examples = self.examples.to_dict()

        host = self.host

        port = self.port

        protocol = self.protocol


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "clientId": client_id,
            "examples": examples,
            "host": host,
            "port": port,
            "protocol": protocol,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connection_examples import ConnectionExamples # noqa: PLC0415
        d = dict(src_dict)
        client_id = d.pop("clientId")

        examples = ConnectionExamples.from_dict(d.pop("examples"))




        host = d.pop("host")

        port = d.pop("port")

        protocol = d.pop("protocol")

        connection = cls(
            client_id=client_id,
            examples=examples,
            host=host,
            port=port,
            protocol=protocol,
        )


        connection.additional_properties = d
        return connection

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
