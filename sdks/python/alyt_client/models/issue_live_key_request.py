from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.scope import Scope
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="IssueLiveKeyRequest")



@_attrs_define
class IssueLiveKeyRequest:
    """ A LIVE key to issue: the fields of a new DEV key (same rules) and the
    approved connector definition it is for.

        Attributes:
            definition_id (str): The approved connector definition the key acts for: the id of one of
                the developer's connectors (surrounding spaces trimmed) with a version
                staff approved or published. Anything else is refused: not one of the
                developer's connectors 400, no approved version yet 409.
            name (str):
            scopes (list[Scope]): At least one scope of the closed set.
            expires_at (datetime.datetime | None | Unset): When the key stops working; must be in the future. Null: never.
     """

    definition_id: str
    name: str
    scopes: list[Scope]
    expires_at: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        definition_id = self.definition_id

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


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "definitionId": definition_id,
            "name": name,
            "scopes": scopes,
        })
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        definition_id = d.pop("definitionId")

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


        issue_live_key_request = cls(
            definition_id=definition_id,
            name=name,
            scopes=scopes,
            expires_at=expires_at,
        )

        return issue_live_key_request

