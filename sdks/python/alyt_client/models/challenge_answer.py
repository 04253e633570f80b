from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.b_tree_map import BTreeMap





T = TypeVar("T", bound="ChallengeAnswer")



@_attrs_define
class ChallengeAnswer:
    """ 
        Attributes:
            token (str): The `token` of the challenge result.
            input_ (BTreeMap | Unset):
     """

    token: str
    input_: BTreeMap | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.b_tree_map import BTreeMap # noqa: PLC0415
        token = self.token

        input_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_, Unset):
            input_ = self.input_.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "token": token,
        })
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.b_tree_map import BTreeMap # noqa: PLC0415
        d = dict(src_dict)
        token = d.pop("token")

        _input_ = d.pop("input", UNSET)
        input_: BTreeMap | Unset
        if isinstance(_input_,  Unset):
            input_ = UNSET
        else:
            input_ = BTreeMap.from_dict(_input_)




        challenge_answer = cls(
            token=token,
            input_=input_,
        )

        return challenge_answer

