from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_credentials_type_0_kind import DeviceCredentialsType0Kind






T = TypeVar("T", bound="DeviceCredentialsType0")



@_attrs_define
class DeviceCredentialsType0:
    """ The embedded broker (local platform): MQTT username and password.

        Attributes:
            client_id (str): The device id; equal to `username` (one session per device).
            kind (DeviceCredentialsType0Kind):
            password (str): Shown once; stored only as a SHA-256 hash.
            username (str): The device id.
     """

    client_id: str
    kind: DeviceCredentialsType0Kind
    password: str
    username: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        client_id = self.client_id

        kind = self.kind.value

        password = self.password

        username = self.username


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "clientId": client_id,
            "kind": kind,
            "password": password,
            "username": username,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_id = d.pop("clientId")

        kind = DeviceCredentialsType0Kind(d.pop("kind"))




        password = d.pop("password")

        username = d.pop("username")

        device_credentials_type_0 = cls(
            client_id=client_id,
            kind=kind,
            password=password,
            username=username,
        )


        device_credentials_type_0.additional_properties = d
        return device_credentials_type_0

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
