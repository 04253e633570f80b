from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="Problem")



@_attrs_define
class Problem:
    """ The problem body of every error response.

        Attributes:
            detail (str): What is wrong, for a person to read.
            status (int):
            title (str):
            type_ (str): A stable identifier of the kind of problem, e.g. `urn:alyt:problem:validation`.
            field (str | Unset): The request field at fault (a JSON path like `payload.key`, or a query parameter).
            location (str | Unset): Where to send this request instead, on `misdirected` problems (the
                event stream's own host).
            quota (str | Unset): The quota that is spent (`REQUESTS`, ...), on `quota-exceeded` problems.
            request_id (str | Unset): The id of the request, as in the `x-request-id` header and the logs.
     """

    detail: str
    status: int
    title: str
    type_: str
    field: str | Unset = UNSET
    location: str | Unset = UNSET
    quota: str | Unset = UNSET
    request_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        status = self.status

        title = self.title

        type_ = self.type_

        field = self.field

        location = self.location

        quota = self.quota

        request_id = self.request_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "detail": detail,
            "status": status,
            "title": title,
            "type": type_,
        })
        if field is not UNSET:
            field_dict["field"] = field
        if location is not UNSET:
            field_dict["location"] = location
        if quota is not UNSET:
            field_dict["quota"] = quota
        if request_id is not UNSET:
            field_dict["requestId"] = request_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        detail = d.pop("detail")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        field = d.pop("field", UNSET)

        location = d.pop("location", UNSET)

        quota = d.pop("quota", UNSET)

        request_id = d.pop("requestId", UNSET)

        problem = cls(
            detail=detail,
            status=status,
            title=title,
            type_=type_,
            field=field,
            location=location,
            quota=quota,
            request_id=request_id,
        )


        problem.additional_properties = d
        return problem

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
