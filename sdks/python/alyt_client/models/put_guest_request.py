from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="PutGuestRequest")



@_attrs_define
class PutGuestRequest:
    """ A stay by reservation key.

        Attributes:
            check_in (datetime.datetime):
            check_out (datetime.datetime): In the future, after `checkIn`.
            email (str):
            property_id (UUID):
            name (None | str | Unset):
            phone_thing_id (None | Unset | UUID):
            require_network (bool | None | Unset):
     """

    check_in: datetime.datetime
    check_out: datetime.datetime
    email: str
    property_id: UUID
    name: None | str | Unset = UNSET
    phone_thing_id: None | Unset | UUID = UNSET
    require_network: bool | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        check_in = self.check_in.isoformat()

        check_out = self.check_out.isoformat()

        email = self.email

        property_id = str(self.property_id)

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        phone_thing_id: None | str | Unset
        if isinstance(self.phone_thing_id, Unset):
            phone_thing_id = UNSET
        elif isinstance(self.phone_thing_id, UUID):
            phone_thing_id = str(self.phone_thing_id)
        else:
            phone_thing_id = self.phone_thing_id

        require_network: bool | None | Unset
        if isinstance(self.require_network, Unset):
            require_network = UNSET
        else:
            require_network = self.require_network


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "checkIn": check_in,
            "checkOut": check_out,
            "email": email,
            "propertyId": property_id,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if phone_thing_id is not UNSET:
            field_dict["phoneThingId"] = phone_thing_id
        if require_network is not UNSET:
            field_dict["requireNetwork"] = require_network

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        check_in = datetime.datetime.fromisoformat(d.pop("checkIn"))




        check_out = datetime.datetime.fromisoformat(d.pop("checkOut"))




        email = d.pop("email")

        property_id = UUID(d.pop("propertyId"))




        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_phone_thing_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                phone_thing_id_type_0 = UUID(data)



                return phone_thing_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        phone_thing_id = _parse_phone_thing_id(d.pop("phoneThingId", UNSET))


        def _parse_require_network(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        require_network = _parse_require_network(d.pop("requireNetwork", UNSET))


        put_guest_request = cls(
            check_in=check_in,
            check_out=check_out,
            email=email,
            property_id=property_id,
            name=name,
            phone_thing_id=phone_thing_id,
            require_network=require_network,
        )

        return put_guest_request

