from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.caller_kind import CallerKind
from ..models.key_kind import KeyKind
from ..models.scope import Scope
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="WhoAmI")



@_attrs_define
class WhoAmI:
    """ Who the caller is, as the platform sees it.

        Attributes:
            definition_id (None | str): LIVE keys only: the connector definition the key was issued for.
            developer_id (UUID):
            key_id (None | UUID):
            key_kind (KeyKind | None):
            kind (CallerKind):
            scopes (list[Scope]): Keys only: the key's scopes (a session acts by its roles, not scopes).
            tenants (list[UUID]): The tenants the caller reaches: a DEV key its sandbox; a LIVE key the
                tenants that installed its connector (none yet: approval alone grants
                no household access); a session the tenants of its claims.
            user_id (None | UUID):
     """

    definition_id: None | str
    developer_id: UUID
    key_id: None | UUID
    key_kind: KeyKind | None
    kind: CallerKind
    scopes: list[Scope]
    tenants: list[UUID]
    user_id: None | UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        definition_id: None | str
        definition_id = self.definition_id

        developer_id = str(self.developer_id)

        key_id: None | str
        if isinstance(self.key_id, UUID):
            key_id = str(self.key_id)
        else:
            key_id = self.key_id

        key_kind: None | str
        if isinstance(self.key_kind, KeyKind):
            key_kind = self.key_kind.value
        else:
            key_kind = self.key_kind

        kind = self.kind.value

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)



        tenants = []
        for tenants_item_data in self.tenants:
            tenants_item = str(tenants_item_data)
            tenants.append(tenants_item)



        user_id: None | str
        if isinstance(self.user_id, UUID):
            user_id = str(self.user_id)
        else:
            user_id = self.user_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "definitionId": definition_id,
            "developerId": developer_id,
            "keyId": key_id,
            "keyKind": key_kind,
            "kind": kind,
            "scopes": scopes,
            "tenants": tenants,
            "userId": user_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_definition_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        definition_id = _parse_definition_id(d.pop("definitionId"))


        developer_id = UUID(d.pop("developerId"))




        def _parse_key_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                key_id_type_1 = UUID(data)



                return key_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        key_id = _parse_key_id(d.pop("keyId"))


        def _parse_key_kind(data: object) -> KeyKind | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                key_kind_type_1 = KeyKind(data)



                return key_kind_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(KeyKind | None, data)

        key_kind = _parse_key_kind(d.pop("keyKind"))


        kind = CallerKind(d.pop("kind"))




        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in (_scopes):
            scopes_item = Scope(scopes_item_data)



            scopes.append(scopes_item)


        tenants = []
        _tenants = d.pop("tenants")
        for tenants_item_data in (_tenants):
            tenants_item = UUID(tenants_item_data)



            tenants.append(tenants_item)


        def _parse_user_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                user_id_type_1 = UUID(data)



                return user_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        user_id = _parse_user_id(d.pop("userId"))


        who_am_i = cls(
            definition_id=definition_id,
            developer_id=developer_id,
            key_id=key_id,
            key_kind=key_kind,
            kind=kind,
            scopes=scopes,
            tenants=tenants,
            user_id=user_id,
        )


        who_am_i.additional_properties = d
        return who_am_i

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
