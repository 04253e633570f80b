from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="RunActionRequest")



@_attrs_define
class RunActionRequest:
    """ A run-action request (spec: Resources > Room and overview).

        Attributes:
            action (str):
            capability (str): A capability id.
            tenant_id (None | Unset | UUID):
            value (Any | Unset): The value to set (a toggle or lock action without one flips the
                current value; an unknown one becomes true).
     """

    action: str
    capability: str
    tenant_id: None | Unset | UUID = UNSET
    value: Any | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        action = self.action

        capability = self.capability

        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        elif isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id

        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "action": action,
            "capability": capability,
        })
        if tenant_id is not UNSET:
            field_dict["tenantId"] = tenant_id
        if value is not UNSET:
            field_dict["value"] = value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        action = d.pop("action")

        capability = d.pop("capability")

        def _parse_tenant_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tenant_id_type_1 = UUID(data)



                return tenant_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        tenant_id = _parse_tenant_id(d.pop("tenantId", UNSET))


        value = d.pop("value", UNSET)

        run_action_request = cls(
            action=action,
            capability=capability,
            tenant_id=tenant_id,
            value=value,
        )

        return run_action_request

