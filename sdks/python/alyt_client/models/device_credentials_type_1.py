from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_credentials_type_1_kind import DeviceCredentialsType1Kind
from ..types import UNSET, Unset






T = TypeVar("T", bound="DeviceCredentialsType1")



@_attrs_define
class DeviceCredentialsType1:
    """ IoT Core (hosted): an X.509 certificate and its private key. The
    MQTT client id must be `clientId` (the IoT thing name).

        Attributes:
            certificate_id (str):
            certificate_pem (str):
            client_id (str): The device id, which is also the IoT thing name.
            kind (DeviceCredentialsType1Kind):
            private_key (str): Shown once; never stored by the platform.
            endpoint (str | Unset): The broker's host name (the account's IoT data endpoint), when known.
     """

    certificate_id: str
    certificate_pem: str
    client_id: str
    kind: DeviceCredentialsType1Kind
    private_key: str
    endpoint: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        certificate_id = self.certificate_id

        certificate_pem = self.certificate_pem

        client_id = self.client_id

        kind = self.kind.value

        private_key = self.private_key

        endpoint = self.endpoint


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "certificateId": certificate_id,
            "certificatePem": certificate_pem,
            "clientId": client_id,
            "kind": kind,
            "privateKey": private_key,
        })
        if endpoint is not UNSET:
            field_dict["endpoint"] = endpoint

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        certificate_id = d.pop("certificateId")

        certificate_pem = d.pop("certificatePem")

        client_id = d.pop("clientId")

        kind = DeviceCredentialsType1Kind(d.pop("kind"))




        private_key = d.pop("privateKey")

        endpoint = d.pop("endpoint", UNSET)

        device_credentials_type_1 = cls(
            certificate_id=certificate_id,
            certificate_pem=certificate_pem,
            client_id=client_id,
            kind=kind,
            private_key=private_key,
            endpoint=endpoint,
        )


        device_credentials_type_1.additional_properties = d
        return device_credentials_type_1

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
