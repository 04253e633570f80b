from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.key_kind import KeyKind
from ..models.scope import Scope
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="Key")



@_attrs_define
class Key:
    """ A key as the spec's Key object; never the secret.

        Attributes:
            created_at (datetime.datetime):
            definition_id (None | str): The connector definition of a LIVE key.
            expires_at (datetime.datetime | None):
            id (UUID):
            kind (KeyKind): DEV keys act in their developer's sandbox; LIVE keys for their own installed connector.
            last_used_at (datetime.datetime | None): To the minute.
            name (str):
            prefix (str): The first characters of the secret, for recognition.
            revoked_at (datetime.datetime | None):
            rotated_from_id (None | UUID):
            scopes (list[Scope]):
     """

    created_at: datetime.datetime
    definition_id: None | str
    expires_at: datetime.datetime | None
    id: UUID
    kind: KeyKind
    last_used_at: datetime.datetime | None
    name: str
    prefix: str
    revoked_at: datetime.datetime | None
    rotated_from_id: None | UUID
    scopes: list[Scope]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        definition_id: None | str
        definition_id = self.definition_id

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        id = str(self.id)

        kind = self.kind.value

        last_used_at: None | str
        if isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        name = self.name

        prefix = self.prefix

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        rotated_from_id: None | str
        if isinstance(self.rotated_from_id, UUID):
            rotated_from_id = str(self.rotated_from_id)
        else:
            rotated_from_id = self.rotated_from_id

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "definitionId": definition_id,
            "expiresAt": expires_at,
            "id": id,
            "kind": kind,
            "lastUsedAt": last_used_at,
            "name": name,
            "prefix": prefix,
            "revokedAt": revoked_at,
            "rotatedFromId": rotated_from_id,
            "scopes": scopes,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        def _parse_definition_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        definition_id = _parse_definition_id(d.pop("definitionId"))


        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expiresAt"))


        id = UUID(d.pop("id"))




        kind = KeyKind(d.pop("kind"))




        def _parse_last_used_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_used_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_used_at = _parse_last_used_at(d.pop("lastUsedAt"))


        name = d.pop("name")

        prefix = d.pop("prefix")

        def _parse_revoked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)



                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        revoked_at = _parse_revoked_at(d.pop("revokedAt"))


        def _parse_rotated_from_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                rotated_from_id_type_1 = UUID(data)



                return rotated_from_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        rotated_from_id = _parse_rotated_from_id(d.pop("rotatedFromId"))


        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in (_scopes):
            scopes_item = Scope(scopes_item_data)



            scopes.append(scopes_item)


        key = cls(
            created_at=created_at,
            definition_id=definition_id,
            expires_at=expires_at,
            id=id,
            kind=kind,
            last_used_at=last_used_at,
            name=name,
            prefix=prefix,
            revoked_at=revoked_at,
            rotated_from_id=rotated_from_id,
            scopes=scopes,
        )


        key.additional_properties = d
        return key

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
