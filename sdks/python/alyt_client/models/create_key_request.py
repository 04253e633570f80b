from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.creatable_kind import CreatableKind
from ..models.scope import Scope
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="CreateKeyRequest")



@_attrs_define
class CreateKeyRequest:
    """ 
        Attributes:
            name (str):
            scopes (list[Scope]): At least one scope of the closed set.
            expires_at (datetime.datetime | None | Unset): When the key stops working; must be in the future. Null: never.
            kind (CreatableKind | Unset):
     """

    name: str
    scopes: list[Scope]
    expires_at: datetime.datetime | None | Unset = UNSET
    kind: CreatableKind | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)



        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "scopes": scopes,
        })
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at
        if kind is not UNSET:
            field_dict["kind"] = kind

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in (_scopes):
            scopes_item = Scope(scopes_item_data)



            scopes.append(scopes_item)


        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expiresAt", UNSET))


        _kind = d.pop("kind", UNSET)
        kind: CreatableKind | Unset
        if isinstance(_kind,  Unset):
            kind = UNSET
        else:
            kind = CreatableKind(_kind)




        create_key_request = cls(
            name=name,
            scopes=scopes,
            expires_at=expires_at,
            kind=kind,
        )

        return create_key_request

