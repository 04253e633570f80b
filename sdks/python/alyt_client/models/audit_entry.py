from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="AuditEntry")



@_attrs_define
class AuditEntry:
    """ One entry of a household's audit trail.

        Attributes:
            actor (None | UUID):
            at (datetime.datetime):
            detail (str):
            id (UUID):
            kind (str): What happened: `guest.checked_out`.
            property_id (None | UUID):
            reservation_key (None | str):
            subject (None | UUID):
     """

    actor: None | UUID
    at: datetime.datetime
    detail: str
    id: UUID
    kind: str
    property_id: None | UUID
    reservation_key: None | str
    subject: None | UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        actor: None | str
        if isinstance(self.actor, UUID):
            actor = str(self.actor)
        else:
            actor = self.actor

        at = self.at.isoformat()

        detail = self.detail

        id = str(self.id)

        kind = self.kind

        property_id: None | str
        if isinstance(self.property_id, UUID):
            property_id = str(self.property_id)
        else:
            property_id = self.property_id

        reservation_key: None | str
        reservation_key = self.reservation_key

        subject: None | str
        if isinstance(self.subject, UUID):
            subject = str(self.subject)
        else:
            subject = self.subject


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actor": actor,
            "at": at,
            "detail": detail,
            "id": id,
            "kind": kind,
            "propertyId": property_id,
            "reservationKey": reservation_key,
            "subject": subject,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_actor(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                actor_type_1 = UUID(data)



                return actor_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        actor = _parse_actor(d.pop("actor"))


        at = datetime.datetime.fromisoformat(d.pop("at"))




        detail = d.pop("detail")

        id = UUID(d.pop("id"))




        kind = d.pop("kind")

        def _parse_property_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                property_id_type_1 = UUID(data)



                return property_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        property_id = _parse_property_id(d.pop("propertyId"))


        def _parse_reservation_key(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reservation_key = _parse_reservation_key(d.pop("reservationKey"))


        def _parse_subject(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                subject_type_1 = UUID(data)



                return subject_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        subject = _parse_subject(d.pop("subject"))


        audit_entry = cls(
            actor=actor,
            at=at,
            detail=detail,
            id=id,
            kind=kind,
            property_id=property_id,
            reservation_key=reservation_key,
            subject=subject,
        )


        audit_entry.additional_properties = d
        return audit_entry

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
