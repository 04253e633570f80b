from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.developer_type import DeveloperType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SignUpRequest")



@_attrs_define
class SignUpRequest:
    """ 
        Attributes:
            bot_token (str): The bot-check response token (Cloudflare Turnstile). The local platform
                accepts Turnstile's test token `XXXX.DUMMY.TOKEN.XXXX`.
            display_name (str):
            email (str): The address the verification link goes to.
            password (str): 12 to 128 characters; not a common or trivial password and not containing
                the address.
            type_ (DeveloperType):
            organisation (None | str | Unset):
            website (None | str | Unset): An http(s) URL.
     """

    bot_token: str
    display_name: str
    email: str
    password: str
    type_: DeveloperType
    organisation: None | str | Unset = UNSET
    website: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        bot_token = self.bot_token

        display_name = self.display_name

        email = self.email

        password = self.password

        type_ = self.type_.value

        organisation: None | str | Unset
        if isinstance(self.organisation, Unset):
            organisation = UNSET
        else:
            organisation = self.organisation

        website: None | str | Unset
        if isinstance(self.website, Unset):
            website = UNSET
        else:
            website = self.website


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "botToken": bot_token,
            "displayName": display_name,
            "email": email,
            "password": password,
            "type": type_,
        })
        if organisation is not UNSET:
            field_dict["organisation"] = organisation
        if website is not UNSET:
            field_dict["website"] = website

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bot_token = d.pop("botToken")

        display_name = d.pop("displayName")

        email = d.pop("email")

        password = d.pop("password")

        type_ = DeveloperType(d.pop("type"))




        def _parse_organisation(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        organisation = _parse_organisation(d.pop("organisation", UNSET))


        def _parse_website(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        website = _parse_website(d.pop("website", UNSET))


        sign_up_request = cls(
            bot_token=bot_token,
            display_name=display_name,
            email=email,
            password=password,
            type_=type_,
            organisation=organisation,
            website=website,
        )

        return sign_up_request

